/**
 * P21, Cloudflare (research notes, Tier 2). Presence is never a refusal: `server:
 * cloudflare`, cf-ray, `__CF$cv$params` + scripts/jsd/main.js (injected into ordinary pages),
 * a bare `/cdn-cgi/` or `cf-chl` substring, a Turnstile widget on the site's own form. Only
 * the interstitial's script pair (at any status, 200 included: Cloudflare puts it on
 * challenge pages only), the legacy challenge tokens on a 403/429/503, or a block
 * headline/refusal error code on a 403/429 count. 52x origin-error pages share the block
 * page's markup (`cf-error-code`) and are outages.
 */
import {
  captures,
  firstCapture,
  firstReference,
  type Prepared,
  type RuleResult,
  verdict,
} from "./types.js";

const CHALLENGE_STATUSES = new Set([403, 429, 503]);
const BLOCK_STATUSES = new Set([403, 429]);
/** The error codes of Cloudflare's block pages; every other cf-error-code is an outage/config page. */
const BLOCK_CODES = new Set([
  "1005",
  "1006",
  "1007",
  "1008",
  "1009",
  "1010",
  "1012",
  "1015",
  "1020",
]);

/** Matched in the page as sent (Prepared.raw), so an entity-escaped quote of it is no script. */
const CHL_OPT = /window\._cf_chl_opt\s*=/g;
const ORCHESTRATE =
  /\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\/(chl_page|jsch|managed|captcha)\/v\d+/;
const LEGACY = ["__cf_chl_jschl_tk__=", "__cf_chl_captcha_tk__=", 'name="jschl_vc"'];
/** `<span class="cf-error-code">1020</span>`, or the newer `<span data-translate="error">Error</span><span>1020</span>`. */
const ERROR_CODE = [
  /class=["']?cf-error-code["']?[^>]*> ?(\d{3,4}) ?</,
  /data-translate="error"[^>]*> ?error ?<\/span> ?<span[^>]*> ?(\d{3,4}) ?</,
];

/**
 * The Ray ID: the cf-ray header, else the one printed on the page or in the challenge URL. A
 * header that holds no id (sent twice and joined, cut, mangled by a relay) falls back to the
 * page's, as DataDome's cid does.
 */
export function rayOf(p: Prepared): string | undefined {
  return firstReference(
    p.headers["cf-ray"]?.trim(),
    ...captures(p.html, [
      /ray id:?\s*(?:<[^>]*>\s*)*([0-9a-f]{16})\b/i,
      /[?&]ray=([0-9a-f]{16})\b/i,
    ]),
  );
}

/** True when `index` lies inside a <script> element (the last <script opened after the last </script>). */
function insideScript(lower: string, index: number): boolean {
  const open = lower.lastIndexOf("<script", index);
  return open >= 0 && lower.lastIndexOf("</script", index) < open;
}

/**
 * `window._cf_chl_opt =` inside a real <script> element of the page as sent. Read on the raw
 * text, not the entity-decoded one: an article quoting the page (`&lt;script&gt;window…`)
 * decodes to a script tag but is none. Only called once the orchestrate path matched.
 */
function assignsChlOpt(raw: string): boolean {
  const lower = raw.toLowerCase();
  CHL_OPT.lastIndex = 0;
  for (let m = CHL_OPT.exec(lower), n = 0; m && n < 50; m = CHL_OPT.exec(lower), n++) {
    if (insideScript(lower, m.index)) return true;
  }
  return false;
}

/**
 * The interstitial's script pair counts at any status: a challenge served with 200 (seen
 * through relays and some configurations) is still "prove you are human". The legacy tokens
 * are form fields and URL parameters a help page can show, so they need a challenge status.
 */
export function cloudflareChallenge(p: Prepared): RuleResult {
  if (p.plain) return null;
  const orchestrate = ORCHESTRATE.exec(p.lower);
  if (orchestrate && assignsChlOpt(p.raw)) {
    return verdict(
      "challenge",
      "cloudflare",
      `_cf_chl_opt + orchestrate/${orchestrate[1]}`,
      rayOf(p),
    );
  }
  if (!CHALLENGE_STATUSES.has(p.status)) return null;
  const legacy = LEGACY.find((m) => p.lower.includes(m));
  if (legacy) return verdict("challenge", "cloudflare", `legacy ${legacy}`, rayOf(p));
  return null;
}

export function cloudflareBlock(p: Prepared): RuleResult {
  if (p.plain) return null;
  const code = firstCapture(p.lower, ERROR_CODE);
  const headline = p.lower.includes('data-translate="block_headline"');
  if (BLOCK_STATUSES.has(p.status)) {
    if (code !== undefined && BLOCK_CODES.has(code)) {
      return verdict("block", "cloudflare", `cf-error-code ${code}`, rayOf(p));
    }
    if (headline) return verdict("block", "cloudflare", "block_headline", rayOf(p));
  }
  // 520–527, 502, 1xxx configuration errors: the origin or the zone is broken, nobody said no.
  if (code !== undefined) return "outage";
  return null;
}
