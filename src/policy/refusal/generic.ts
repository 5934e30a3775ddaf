/**
 * P21 Tier 3 (research notes §2): an unknown WAF's refusal page. Low confidence, so it is
 * reported as "suspected" and needs all three: a refusal status (never a 2xx), a small page
 * (under 1,500 characters of visible text, scripts and styles stripped, first 64 KB only),
 * and a refusal phrase. The same words appear on help pages, login forms and spinners.
 */
import { type Prepared, type RuleResult, verdict } from "./types.js";

const STATUSES = new Set([401, 403, 405, 429, 503]);
export const TIER3_MAX_TEXT = 1500;

const PHRASES: readonly [string, RegExp][] = [
  ["are you a robot", /\bare you a robot\b/],
  ["verify you are human", /\bverify (?:that )?you are (?:a )?human\b/],
  ["unusual traffic", /\bunusual traffic\b/],
  ["automated access", /\bautomated (?:access|requests|queries)\b/],
  ["you have been blocked", /\byou(?: have|'ve| ?’ve) been blocked\b/],
  ["request blocked", /\brequest blocked\b/],
  ["request unsuccessful", /\brequest unsuccessful\b/],
  ["access denied", /\baccess denied\b/],
  ["bot detected", /\bbot detected\b/],
];

/** The phrases that ask the visitor to prove they are a person (P21: whatever the status). */
const HUMAN_CHECK = new Set(["are you a robot", "verify you are human"]);

/** A page that says the site is down for maintenance (RFC 9110 §15.6.4: temporary). */
const MAINTENANCE =
  /\b(?:down for|scheduled|planned|undergoing|under|routine|emergency|site|system|server) maintenance\b|\bmaintenance (?:mode|window|in progress|is in progress|underway|under way)\b/;

/**
 * P15, P21: a 503 that says it is temporary (a maintenance page, or a Retry-After saying when
 * to come back) is the server unavailable for now, tried again as P15 says, not the site's no,
 * though a maintenance page may warn that automated requests fail meanwhile. Vendors' own
 * challenge and block pages are told by their own rules before this one, at any status; and a
 * 503 with a Retry-After that asks the visitor to prove they are a person still counts (P21:
 * such a page, whatever its status), unless it says maintenance.
 */
function temporary(p: Prepared, phrase: string): boolean {
  if (p.status !== 503) return false;
  if (MAINTENANCE.test(p.text)) return true;
  return p.headers["retry-after"] !== undefined && !HUMAN_CHECK.has(phrase);
}

export function generic(p: Prepared): RuleResult {
  if (!STATUSES.has(p.status) || p.plain || p.text.length >= TIER3_MAX_TEXT) return null;
  for (const [name, re] of PHRASES) {
    if (!re.test(p.text)) continue;
    if (temporary(p, name)) continue;
    return verdict("suspected", "generic", `status ${p.status} + "${name}"`);
  }
  return null;
}
