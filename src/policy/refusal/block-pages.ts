/**
 * P21, vendor block pages and gates (research notes, Tier 2): Sucuri, F5 BIG-IP ASM, Google
 * "sorry", Anubis, plus the table's Distil, DDoS-Guard and LinkedIn rows. F5 and Imperva
 * answer 200, so these rules look at the page, not the status; but a vendor's sentence on a
 * 2xx counts only on a page as small as its block page (types.ts blockPageSized), never quoted
 * on a long one (F5's own page in a site's template aside: it keeps F5's title). Footer seals (sucuri.net links), F5's TS/BIGip cookies and DDoS-Guard's
 * server header alone are presence only.
 */
import {
  blockPageSized,
  firstCapture,
  firstReference,
  type Prepared,
  type RuleResult,
  verdict,
} from "./types.js";

const GOOGLE_HOST = /^(?:www\.|ipv4\.|ipv6\.)?google\.[a-z]{2,3}(?:\.[a-z]{2})?$/;

export function sucuri(p: Prepared): RuleResult {
  const blockHeader = p.headers["x-sucuri-block"]?.trim();
  const page =
    !p.plain &&
    blockPageSized(p) &&
    (p.lower.includes("sucuri website firewall - access denied") ||
      p.lower.includes("access denied - sucuri website firewall"));
  if (!blockHeader && !page) return null;
  // The page's Block ID, else the header's (one that holds no id falls back to the other).
  const blockId = firstReference(
    page ? firstCapture(p.html, [/block id:?\s*(?:<[^>]*>\s*)*([a-z]{2,5}\d{2,5})\b/i]) : undefined,
    blockHeader,
  );
  return verdict("block", "sucuri", page ? "Sucuri Access Denied page" : "x-sucuri-block", blockId);
}

/** F5's own title, kept when a site dresses the block page in its template ("… | City of X"). */
const F5_TITLE = /<title>[^<]*\brequest rejected\b[^<]*<\/title>/;

export function f5(p: Prepared): RuleResult {
  // A site may replace F5's page with its own (branding, a help desk, any HTML under 50 KB,
  // answered 200): long, but still titled as F5's and still its sentence and support ID. A
  // page that only quotes the sentence has a title of its own.
  if (p.plain || !(blockPageSized(p) || F5_TITLE.test(p.lower))) return null;
  if (
    !p.lower.includes("the requested url was rejected. please consult with your administrator.")
  ) {
    return null;
  }
  if (!p.lower.includes("support id")) return null;
  const id = firstCapture(p.html, [/support id(?: is)?:?\s*(?:<[^>]*>\s*)*(\d{6,25})/i]);
  return verdict("block", "f5", "Request Rejected + support ID", id);
}

function isGoogleSorry(url: string): boolean {
  try {
    const u = new URL(url);
    return GOOGLE_HOST.test(u.hostname.toLowerCase()) && u.pathname.startsWith("/sorry/");
  } catch {
    return false; // not a URL: not Google's
  }
}

export function google(p: Prepared): RuleResult {
  if (isGoogleSorry(p.url)) return verdict("challenge", "google", "google /sorry/ page");
  if (p.plain) return null;
  if (
    blockPageSized(p) &&
    p.lower.includes("our systems have detected unusual traffic from your computer network")
  ) {
    return verdict("challenge", "google", "unusual traffic from your computer network");
  }
  if (
    p.status === 429 &&
    p.lower.includes('id="captcha-form"') &&
    /recaptcha\/(api|enterprise)\.js|g-recaptcha/.test(p.lower)
  ) {
    return verdict("challenge", "google", "429 captcha-form + reCAPTCHA");
  }
  return null;
}

export function anubis(p: Prepared): RuleResult {
  if (!p.plain && /<script\b[^>]*\bid=["']?anubis_challenge\b/.test(p.lower)) {
    return verdict("challenge", "anubis", "anubis_challenge script");
  }
  return null;
}

export function distil(p: Prepared): RuleResult {
  if (p.plain || !/<title>\s*pardon our interruption/.test(p.lower)) return null;
  const m = ["distilcaptchaform", "distilnetworks.com", "made us think you were a bot"].find((x) =>
    p.lower.includes(x),
  );
  return m ? verdict("challenge", "distil", `Pardon Our Interruption + ${m}`) : null;
}

export function ddosGuard(p: Prepared): RuleResult {
  if (p.plain || !(p.headers["server"] ?? "").toLowerCase().includes("ddos-guard")) return null;
  if (p.status !== 403 && p.status !== 429 && p.status !== 503) return null;
  if (/<title>[^<]*ddos-guard/.test(p.lower) || p.lower.includes('id="link-ddg"')) {
    return verdict("challenge", "ddos-guard", "DDoS-Guard page");
  }
  return null;
}

/** LinkedIn answers crawlers it refuses with the non-standard status 999. */
export function linkedin(p: Prepared): RuleResult {
  if (p.status !== 999) return null;
  try {
    const host = new URL(p.url).hostname.toLowerCase();
    if (host === "linkedin.com" || host.endsWith(".linkedin.com")) {
      return verdict("block", "linkedin", "status 999");
    }
  } catch {
    return null; // not a URL: not LinkedIn's
  }
  return null;
}
