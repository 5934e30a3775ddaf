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

export function generic(p: Prepared): RuleResult {
  if (!STATUSES.has(p.status) || p.plain || p.text.length >= TIER3_MAX_TEXT) return null;
  for (const [name, re] of PHRASES) {
    if (re.test(p.text)) return verdict("suspected", "generic", `status ${p.status} + "${name}"`);
  }
  return null;
}
