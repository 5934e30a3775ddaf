/**
 * P21, Akamai (research notes, Tier 2). The edge deny page is a tiny 403 titled "Access
 * Denied" whose entity-encoded reference starts `#18.`; other prefixes (#2 timeout, #3
 * internal error, #9 invalid URL, #15 unavailable) are errors, not refusals. The word
 * "akamai", the `_abck`/`bm_sz` cookies, the bmak sensor and `x-akamai-*` headers sit on
 * ordinary pages and never count.
 */
import { type Prepared, type RuleResult, verdict } from "./types.js";

/** After entity decoding: `Reference #18.2d351ab8.1699999999.1a2b3c4d`. */
const REFERENCE = /reference\s*#\s*(\d{1,3})\.([0-9a-f]+(?:\.[0-9a-f]+)*)/i;
const SMALL_BODY_BYTES = 32 * 1024;

function akamaiServed(p: Prepared): boolean {
  const server = `${p.headers["server"] ?? ""} ${p.headers["x-cache"] ?? ""}`.toLowerCase();
  return server.includes("akamaighost") || p.lower.includes("errors.edgesuite.net");
}

export function akamaiBlock(p: Prepared): RuleResult {
  if (p.plain) return null;
  const ref = REFERENCE.exec(p.html);
  if (!ref) return null;
  const prefix = ref[1];
  const reference = `${prefix}.${ref[2]}`;
  if (prefix === "18") {
    if (p.status === 403 && /<title>\s*access denied\s*<\/title>/.test(p.lower)) {
      return verdict("block", "akamai", "Access Denied + Reference #18", reference);
    }
    return null;
  }
  // A reference with another prefix on an Akamai error page: an error, not a "no".
  const errorTitle =
    /<title>\s*(invalid url|access denied|request timeout|service unavailable|internal server error)\s*<\/title>/;
  return akamaiServed(p) || errorTitle.test(p.lower) ? "outage" : null;
}

export function akamaiChallenge(p: Prepared): RuleResult {
  if (p.plain) return null;
  if (p.bytes <= SMALL_BODY_BYTES && p.lower.includes("sec-if-cpt-container")) {
    return verdict("challenge", "akamai", "sec-if-cpt-container");
  }
  if (
    /<title>\s*challenge page\s*<\/title>/.test(p.lower) &&
    (p.lower.includes("/.well-known/sbsd") || p.lower.includes("/_sec/sbsd"))
  ) {
    return verdict("challenge", "akamai", "Challenge Page + sbsd");
  }
  return null;
}
