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
  // Last: a page that also says one of the above is named by that, as before this was added.
  [
    "prove you are human",
    /\b(?:prove|confirm) (?:that )?you(?: are|'re| ?’re) (?:a )?(?:human|person|real person|not a robot)\b/,
  ],
];

/**
 * The phrases that say the visitor, not the server, is turned away: asked to prove they are a
 * person (P21: such a page, whatever its status), told they are blocked or taken for a bot. No
 * maintenance page says them; one that does is a no.
 */
const TURNED_AWAY = new Set([
  "are you a robot",
  "verify you are human",
  "prove you are human",
  "unusual traffic",
  "you have been blocked",
  "request blocked",
  "request unsuccessful",
  "bot detected",
]);

/**
 * Words asking the visitor to show they are a person beyond the phrases above ("prove you're
 * human", "I'm not a robot"): they keep a maintenance page a no, and make none by themselves.
 */
const ASKS_FOR_A_PERSON =
  /\b(?:prove|verify|confirm|show) (?:that )?you(?: are|'re| ?’re) (?:a )?(?:human|person|real person|not a robot)\b|\bi(?:'m| am| ?’m) not a robot\b/;

/** A page that says the site is down for maintenance (RFC 9110 §15.6.4: temporary). */
const MAINTENANCE =
  /\b(?:down for|scheduled|planned|undergoing|under|routine|emergency|site|system|server) maintenance\b|\bmaintenance (?:mode|window|in progress|is in progress|underway|under way)\b|\b(?:unavailable|offline|closed) for (?:scheduled |planned |routine )?maintenance\b/;

/**
 * P15, P21: a 503 whose page says the site is down for maintenance is the server unavailable for
 * now, tried again as P15 says, not the site's no, though a maintenance page may warn that
 * automated requests fail (or are refused) meanwhile. Only its words make it so: a Retry-After
 * alone says when to come back, not why, and a 503 "Access denied" with one is a no (when in
 * doubt, don't send). A maintenance page that asks the visitor to prove they are a person or says
 * they are blocked (TURNED_AWAY, ASKS_FOR_A_PERSON) is still a no. Vendors' own challenge and block pages are told
 * by their own rules before this one, at any status.
 */
function temporary(p: Prepared, found: readonly string[]): boolean {
  if (p.status !== 503 || !MAINTENANCE.test(p.text)) return false;
  return !found.some((name) => TURNED_AWAY.has(name)) && !ASKS_FOR_A_PERSON.test(p.text);
}

export function generic(p: Prepared): RuleResult {
  if (!STATUSES.has(p.status) || p.plain || p.text.length >= TIER3_MAX_TEXT) return null;
  const found = PHRASES.filter(([, re]) => re.test(p.text)).map(([name]) => name);
  const first = found[0];
  if (first === undefined || temporary(p, found)) return null;
  return verdict("suspected", "generic", `status ${p.status} + "${first}"`);
}
