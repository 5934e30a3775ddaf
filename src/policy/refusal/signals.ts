/**
 * P21 Tier 1 (research notes §2): vendor-documented, machine-readable signals, decisive on
 * their own at any status, plus redirects whose target is itself the evidence (§2
 * "Preparation" 1): Google's /sorry/, Anubis's /.within.website/?redir=, DataDome's
 * captcha-delivery.com.
 */
import { rayOf } from "./cloudflare.js";
import { type Prepared, type RuleResult, verdict } from "./types.js";

function header(p: Prepared, name: string): string {
  return (p.headers[name] ?? "").trim().toLowerCase();
}

export function tier1Headers(p: Prepared): RuleResult {
  if (header(p, "cf-mitigated") === "challenge") {
    return verdict(
      "challenge",
      "cloudflare",
      "cf-mitigated: challenge",
      // The header's Ray ID, else the page's (one that holds no id falls back).
      rayOf(p),
    );
  }
  const waf = header(p, "x-amzn-waf-action");
  if (waf === "challenge" || waf === "captcha") {
    return verdict(
      "challenge",
      "aws-waf",
      `x-amzn-waf-action: ${waf}`,
      p.headers["x-amzn-requestid"]?.trim(),
    );
  }
  if (header(p, "x-vercel-mitigated") === "challenge") {
    return verdict(
      "challenge",
      "vercel",
      "x-vercel-mitigated: challenge",
      p.headers["x-vercel-id"]?.trim(),
    );
  }
  return null;
}

export function redirectEvidence(p: Prepared): RuleResult {
  if (p.status < 300 || p.status > 399) return null;
  const location = p.headers["location"];
  if (!location) return null;
  let target: URL;
  try {
    target = new URL(location, p.url);
  } catch {
    return null; // an unreadable Location is the redirect follower's problem, not a refusal
  }
  const host = target.hostname.toLowerCase();
  if (target.pathname === "/.within.website/" && target.searchParams.has("redir")) {
    return verdict("challenge", "anubis", "redirect to /.within.website/?redir=");
  }
  if (host === "captcha-delivery.com" || host.endsWith(".captcha-delivery.com")) {
    return verdict("challenge", "datadome", "redirect to captcha-delivery.com");
  }
  if (
    /^(?:www\.|ipv4\.|ipv6\.)?google\.[a-z.]+$/.test(host) &&
    target.pathname.startsWith("/sorry/")
  ) {
    return verdict("challenge", "google", "redirect to google /sorry/");
  }
  return null;
}
