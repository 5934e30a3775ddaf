/**
 * P21: recognise "the site said no" from one response, keeping false positives low: a
 * contact form with a reCAPTCHA, or a page merely served through a CDN, is not a no.
 * The rules come in three tiers: Tier 1 (documented headers, decisive alone), Tier 2
 * (vendor page fingerprints, each a combination), Tier 3 (generic phrases on a small
 * refusal-status page, reported as "suspected"). A vendor's own error
 * page (Cloudflare 52x, Akamai non-#18 references) is an outage and stops the search.
 * Presence markers (server headers, sensor scripts, cookies, widgets) never count alone; a
 * CAPTCHA widget counts only when it is the whole page (refusal/captcha-page.ts), and a page
 * with no widget only when it is nothing but the ask to prove one is a person.
 */
import { akamaiBlock, akamaiChallenge } from "./refusal/akamai.js";
import { anubis, ddosGuard, distil, f5, google, linkedin, sucuri } from "./refusal/block-pages.js";
import { awsWafBody, datadome, kasada, perimeterx, vercelBody } from "./refusal/bot-vendors.js";
import { askOnly, captchaPage } from "./refusal/captcha-page.js";
import { cloudflareBlock, cloudflareChallenge } from "./refusal/cloudflare.js";
import { generic } from "./refusal/generic.js";
import { impervaBlock, impervaChallenge } from "./refusal/imperva.js";
import { prepare } from "./refusal/prepare.js";
import { redirectEvidence, tier1Headers } from "./refusal/signals.js";
import type { RefusalInput, RefusalVerdict, Rule } from "./refusal/types.js";

export type { RefusalInput, RefusalVerdict } from "./refusal/types.js";

/**
 * In order: Tier 1, redirect evidence, Tier 2 by vendor, a page that is only a CAPTCHA
 * widget, Tier 3, then a page that is nothing but the ask to prove one is a person (no
 * widget: "Please prove you are human"). First answer wins.
 */
const RULES: readonly Rule[] = [
  tier1Headers,
  redirectEvidence,
  cloudflareChallenge,
  cloudflareBlock,
  akamaiBlock,
  akamaiChallenge,
  impervaBlock,
  impervaChallenge,
  datadome,
  perimeterx,
  awsWafBody,
  sucuri,
  f5,
  kasada,
  google,
  anubis,
  vercelBody,
  distil,
  ddosGuard,
  linkedin,
  captchaPage,
  generic,
  askOnly,
];

/**
 * A challenge, CAPTCHA or vendor block page, whatever its status; null for anything else
 * (including a plain 401/403/429/503: see refusalFor). Headers must have lower-case names.
 */
export function detectChallenge(r: RefusalInput): RefusalVerdict | null {
  const p = prepare(r);
  for (const rule of RULES) {
    const result = rule(p);
    if (result === "outage") return null;
    if (result !== null) return result;
  }
  return null;
}

/**
 * P21 for one response: a recognised challenge or block, else a plain 401 or 403. A plain
 * 429 or 503 is not a refusal here: the retry path (P15) handles it, and only a 429 that
 * outlasts its retries becomes a no (decided by the caller).
 */
export function refusalFor(r: RefusalInput): RefusalVerdict | null {
  const found = detectChallenge(r);
  if (found) return found;
  if (r.status === 401 || r.status === 403) {
    return { verdict: "block", provider: "http", marker: `status ${r.status}` };
  }
  return null;
}
