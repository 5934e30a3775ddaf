/**
 * P21: a page that is nothing but a CAPTCHA ("Please verify you are a human" and a reCAPTCHA,
 * hCaptcha, Turnstile or Friendly Captcha widget), at any status, 200 included. The research
 * notes' widgets row: a widget counts only "when it is the whole page"; on the site's own
 * contact, login or signup form, or as a script the page merely loads, it is nothing. So all
 * of these must hold:
 * - an HTML answer (Content-Type missing or naming html) whose whole body is within the
 *   64 KB read for visible text (GENERIC_SCAN_BYTES), so "the whole page" is judged on all of
 *   it; a bigger page is never one (vendor interstitials have their own rules);
 * - its visible text (scripts, styles and tags removed; the title counts) is under
 *   CAPTCHA_PAGE_MAX_TEXT characters and asks the visitor to prove they are a person
 *   (PHRASES below);
 * - a widget element: class g-recaptcha / h-captcha / cf-turnstile / frc-captcha, or an
 *   explicit `grecaptcha|hcaptcha|turnstile.render(` call. The api.js script alone, or
 *   reCAPTCHA v3's invisible `grecaptcha.execute`, is not a widget;
 * - nothing else to read or fill in: no field besides the widget (a text, e-mail, password,
 *   search … input, a textarea or a select: contact forms, logins and newsletter signups
 *   have them), and no list of records: at most CAPTCHA_PAGE_MAX_ITEMS links, list items
 *   and table rows each.
 * Every check reads at most 64 KB, so a 20 MiB body costs a size comparison.
 */
import { GENERIC_SCAN_BYTES } from "./prepare.js";
import { type Prepared, type RuleResult, verdict } from "./types.js";

export const CAPTCHA_PAGE_MAX_BYTES = GENERIC_SCAN_BYTES;
export const CAPTCHA_PAGE_MAX_TEXT = 800;
/** Links, list items and table rows, each: a privacy, a help and a home link at most. */
export const CAPTCHA_PAGE_MAX_ITEMS = 3;
/** Form controls looked at; a page with more is a form, not a CAPTCHA page. */
const MAX_CONTROLS = 100;

const YOU_ARE = "you(?: are|['’]re)";
const HUMAN = "(?:a )?(?:human(?: being)?|real person|person|not a (?:robot|bot))";
const PHRASES: readonly [string, RegExp][] = [
  ["verify you are human", new RegExp(`\\bverify(?:ing)? (?:that )?${YOU_ARE} ${HUMAN}\\b`)],
  ["prove you are human", new RegExp(`\\bprove (?:that )?${YOU_ARE} ${HUMAN}\\b`)],
  ["confirm you are human", new RegExp(`\\bconfirm (?:that )?${YOU_ARE} ${HUMAN}\\b`)],
  ["are you a robot", /\bare you (?:a robot|a bot|a human|human)\b/],
  ["human verification", /\bhuman verification\b/],
  ["security check", /\bsecurity check\b/],
  ["verification required", /\bverification required\b/],
  ["complete the captcha", /\b(?:complete|solve|pass) (?:the|this|a|our) (?:captcha|challenge)\b/],
  ["i'm not a robot", /\bi['’]?m not a (?:robot|bot)\b/],
];

const WIDGET_PROVIDER: Record<string, string> = {
  "g-recaptcha": "recaptcha",
  grecaptcha: "recaptcha",
  "h-captcha": "hcaptcha",
  hcaptcha: "hcaptcha",
  "cf-turnstile": "turnstile",
  turnstile: "turnstile",
  "frc-captcha": "friendly-captcha",
};
/** A class token (in `lower`, whitespace already collapsed to single spaces). */
const WIDGET_CLASS =
  /\bclass ?= ?["']?(?:[^"'>]* )?(g-recaptcha|h-captcha|cf-turnstile|frc-captcha)(?=["' />])/;
const WIDGET_RENDER = /\b(grecaptcha|hcaptcha|turnstile)(?:\.enterprise)?\.render ?\(/;

const CONTROL = /<(input|textarea|select)\b[^>]*>/g;
/** The field a widget fills in itself. */
const WIDGET_FIELD = /\bname ?= ?["']?[a-z-]*(?:captcha|turnstile)[-_](?:response|solution)\b/;
/** Input types that are not something to fill in. */
const NOT_FIELDS = new Set(["hidden", "submit", "button", "image", "reset", "checkbox"]);
const ITEMS = [/<a\b[^>]*\bhref ?=/g, /<li\b/g, /<tr\b/g];

function isHtml(p: Prepared): boolean {
  const type = p.headers["content-type"];
  return type === undefined || type.toLowerCase().includes("html");
}

function widgetOf(lower: string): { marker: string; provider: string } | null {
  const m = WIDGET_CLASS.exec(lower) ?? WIDGET_RENDER.exec(lower);
  const name = m?.[1];
  if (!m || !name) return null;
  const provider = WIDGET_PROVIDER[name] ?? name;
  return { marker: m[0].startsWith("class") ? name : `${name}.render`, provider };
}

/** True when the page has something to fill in besides the widget (its own response field). */
function hasFields(lower: string): boolean {
  CONTROL.lastIndex = 0;
  let n = 0;
  for (let m = CONTROL.exec(lower); m; m = CONTROL.exec(lower)) {
    if (++n > MAX_CONTROLS) return true;
    const tag = m[0];
    if (WIDGET_FIELD.test(tag)) continue; // g-recaptcha-response, cf-turnstile-response, …
    if (m[1] !== "input") return true;
    const type = /\btype ?= ?["']?([a-z-]+)/.exec(tag)?.[1] ?? "text";
    if (!NOT_FIELDS.has(type)) return true;
  }
  return false;
}

/** More than `max` matches of `re` in `s` (stops counting at max + 1). */
function moreThan(re: RegExp, s: string, max: number): boolean {
  re.lastIndex = 0;
  let n = 0;
  while (re.exec(s)) if (++n > max) return true;
  return false;
}

export function captchaPage(p: Prepared): RuleResult {
  if (p.plain || p.bytes > CAPTCHA_PAGE_MAX_BYTES || !isHtml(p)) return null;
  if (p.text.length >= CAPTCHA_PAGE_MAX_TEXT) return null;
  const phrase = PHRASES.find(([, re]) => re.test(p.text));
  if (!phrase) return null;
  const widget = widgetOf(p.lower);
  if (!widget) return null;
  if (hasFields(p.lower)) return null;
  if (ITEMS.some((re) => moreThan(re, p.lower, CAPTCHA_PAGE_MAX_ITEMS))) return null;
  return verdict("challenge", widget.provider, `whole page: ${widget.marker} + "${phrase[0]}"`);
}
