/**
 * P21, Imperva / Incapsula (research notes, Tier 2). Gated responses are often HTTP 200, so
 * the status does not matter for the incident page. The JS-challenge stub is recognised by
 * its size and emptiness, never by the `_Incapsula_Resource` substring: the async telemetry
 * (`SWJIYLWA=…&ns=1&cb=…`) is injected into ordinary pages, and so are the `visid_incap_`
 * cookies and `x-iinfo`.
 */
import { blockPageSized, firstCapture, type Prepared, type RuleResult, verdict } from "./types.js";

const STUB_MAX_BYTES = 3000;
const SCRIPT_TAG = /<script\b[^>]*>/g;

function incidentId(p: Prepared): string | undefined {
  return firstCapture(p.html, [/incident id:?\s*(\d+-\d+)/i, /incident_id=(\d+-\d+)/i]);
}

export function impervaBlock(p: Prepared): RuleResult {
  if (p.plain) return null;
  // The sentence counts on a page the size of Imperva's (blockPageSized); its iframe, below,
  // is the page's own markup and counts at any size.
  if (p.lower.includes("incapsula incident id") && blockPageSized(p)) {
    return verdict("block", "imperva", "Incapsula incident ID", incidentId(p));
  }
  if (/<iframe\b[^>]*_incapsula_resource\?cwudnsai=/.test(p.lower)) {
    return verdict("block", "imperva", "_Incapsula_Resource?CWUDNSAI iframe", incidentId(p));
  }
  return null;
}

/** A synchronous challenge script: no async/defer attribute, no `ns=` telemetry parameter. */
function hasSyncChallengeScript(lower: string): boolean {
  SCRIPT_TAG.lastIndex = 0;
  for (let m = SCRIPT_TAG.exec(lower), n = 0; m && n < 200; m = SCRIPT_TAG.exec(lower), n++) {
    const tag = m[0];
    if (!tag.includes("_incapsula_resource?swjiylwa=")) continue;
    if (/\b(async|defer)\b/.test(tag) || /[?&]ns=/.test(tag)) continue;
    return true;
  }
  return false;
}

export function impervaChallenge(p: Prepared): RuleResult {
  if (p.plain || p.bytes >= STUB_MAX_BYTES) return null;
  if (hasSyncChallengeScript(p.lower) && p.text === "") {
    return verdict("challenge", "imperva", "_Incapsula_Resource?SWJIYLWA stub");
  }
  return null;
}
