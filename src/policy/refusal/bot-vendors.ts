/**
 * P21, bot-management vendors (research notes, Tier 2): DataDome, PerimeterX/HUMAN, AWS WAF
 * with its header stripped, Kasada, Vercel. Each needs the combination the notes give; the
 * sensors these vendors put on every normal page (`x-datadome: protected`, the datadome
 * cookie, `_pxAppId` on a full page, the awswaf SDK, `x-kpsdk-ct` on a 200) never count.
 */
import {
  captures,
  firstCapture,
  firstReference,
  type Prepared,
  type RuleResult,
  verdict,
} from "./types.js";

const SMALL_BODY_BYTES = 32 * 1024;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * DataDome's cid: its header, else the page's (P21: the reference id recorded with the no). A
 * header that holds no id (mangled by a relay, cut, too long) falls back to the page's.
 */
function datadomeCid(p: Prepared): string | undefined {
  return firstReference(
    p.headers["x-datadome-cid"]?.trim(),
    ...captures(p.html, [
      /['"]cid['"]\s*:\s*['"]([^'"]+)['"]/i,
      /initialcid=([^&"'\s]+)/i,
      /[?&]cid=([^&"'\s]+)/i,
    ]),
  );
}

export function datadome(p: Prepared): RuleResult {
  const body = !p.plain;
  const page = body && p.lower.includes("captcha-delivery.com") && /var dd ?= ?\{/.test(p.lower);
  const xhr = body && /"url" ?: ?"https:\/\/geo\.captcha-delivery\.com\//.test(p.lower);
  if (page || xhr) {
    // 't':'bv' is DataDome's "IP banned" page, a hard block; 'fe'/'it' show a CAPTCHA.
    const banned = /['"]t['"] ?: ?['"]bv['"]/.test(p.lower);
    const marker = page ? "var dd + captcha-delivery.com" : "JSON url geo.captcha-delivery.com";
    return verdict(banned ? "block" : "challenge", "datadome", marker, datadomeCid(p));
  }
  if ((p.status === 401 || p.status === 403) && p.headers["x-dd-b"] !== undefined) {
    return verdict("challenge", "datadome", `status ${p.status} + x-dd-b`, datadomeCid(p));
  }
  return null;
}

function pxReference(p: Prepared): string | undefined {
  return firstCapture(p.html, [
    new RegExp(`reference id:?\\s*(?:<[^>]*>\\s*)*#?\\s*(${UUID})`, "i"),
    new RegExp(`"uuid"\\s*:\\s*"(${UUID})"`, "i"),
  ]);
}

export function perimeterx(p: Prepared): RuleResult {
  if (p.plain) return null;
  if (p.status === 403 || p.status === 429) {
    const page =
      p.lower.includes('id="px-captcha"') ||
      p.lower.includes("access to this page has been denied");
    const vendor = ["_pxappid", "px-cdn.net", "perimeterx"].find((m) => p.lower.includes(m));
    if (page && vendor)
      return verdict("challenge", "perimeterx", `px page + ${vendor}`, pxReference(p));
  }
  // The "Advanced Blocking Response" JSON sent to XHR requests.
  if (p.status === 403 && p.lower.trimStart().startsWith("{")) {
    if (p.lower.includes('"appid"') && p.lower.includes('"blockscript"')) {
      return verdict("challenge", "perimeterx", "ABR JSON appId + blockScript", pxReference(p));
    }
  }
  return null;
}

/** AWS WAF's interstitial when a relay stripped x-amzn-waf-action (Tier 1 covers the header). */
export function awsWafBody(p: Prepared): RuleResult {
  if (p.plain || p.bytes > SMALL_BODY_BYTES || !p.lower.includes("gokuprops")) return null;
  const script = /awswaf\.com\/[^"'\s>]*\/(challenge|captcha)\.js/.exec(p.lower);
  const container = /id=["']?(challenge|captcha)-container/.test(p.lower);
  if (script && container) return verdict("challenge", "aws-waf", `gokuProps + ${script[1]}.js`);
  return null;
}

export function kasada(p: Prepared): RuleResult {
  if (p.status !== 429) return null;
  const header = Object.keys(p.headers).find((h) => h.startsWith("x-kpsdk-"));
  if (header) return verdict("challenge", "kasada", `429 + ${header}`);
  if (
    !p.plain &&
    p.bytes <= SMALL_BODY_BYTES &&
    /ips\.js\?[^"'>]*(kp_uidz=|x-kpsdk-im=)/.test(p.lower)
  ) {
    return verdict("challenge", "kasada", "429 + ips.js KP_UIDz");
  }
  return null;
}

export function vercelBody(p: Prepared): RuleResult {
  if (p.plain || !/<title>\s*vercel security checkpoint\s*<\/title>/.test(p.lower)) return null;
  return verdict(
    "challenge",
    "vercel",
    "Vercel Security Checkpoint",
    p.headers["x-vercel-id"]?.trim(),
  );
}
