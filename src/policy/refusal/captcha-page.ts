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
 * - a widget element: class g-recaptcha / h-captcha / cf-turnstile / frc-captcha, an
 *   explicit `grecaptcha|hcaptcha|turnstile.render(` call, the widget's own `<iframe>`
 *   (google.com or recaptcha.net `/recaptcha/`, hcaptcha.com, challenges.cloudflare.com), or
 *   the site's own image CAPTCHA: an `<img>` named a captcha (its src, alt, id or class) and
 *   a text field named a captcha (`captcha_code`, `CaptchaCode`) to type its characters in.
 *   The api.js script alone, or reCAPTCHA v3's invisible `grecaptcha.execute`, is not a widget;
 * - nothing else to read or fill in: no field besides the widget's (a text, e-mail, password,
 *   search … input, a textarea or a select: contact forms, logins and newsletter signups
 *   have them; an image CAPTCHA's one answer field is the widget's), and no list of records:
 *   at most CAPTCHA_PAGE_MAX_ITEMS links, list items and table rows each.
 *
 * A page with no widget at all is one only when it is nothing but the ask (`askOnly`): a
 * sentence that tells the visitor to prove, verify or confirm they are a person (an imperative:
 * at the start of a sentence or after "please", not "we may ask you to verify you are human"
 * in a help page's running text, nor the question "are you human?" an article asks) that is
 * shown (not inside a `hidden` or `display: none` element: a validator's message, a closed
 * dialog), visible text under ASK_ONLY_MAX_TEXT characters, no field at all and the same few
 * links.
 * Every check reads at most 64 KB, so a 20 MiB body costs a size comparison.
 */
import { GENERIC_SCAN_BYTES, visibleText } from "./prepare.js";
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
/** A widget's own frame, as its script draws it (or a page writes it out). */
const WIDGET_IFRAME =
  /<iframe\b[^>]*\bsrc ?= ?["']?(?:https?:)?\/\/(?:[a-z0-9-]+\.)*(?:(?:google\.com|recaptcha\.net)\/recaptcha\/|(hcaptcha)\.com\/|challenges\.cloudflare\.com\/)/;
/** An image named a captcha: its src, alt, id or class says so (Securimage, BotDetect, a CMS's). */
const CAPTCHA_IMAGE = /<img\b[^>]*\b(?:src|alt|id|class) ?= ?["']?[^"'>]*captcha/;
/** A field named a captcha: where an image CAPTCHA's characters are typed. */
const CAPTCHA_FIELD = /\b(?:name|id) ?= ?["']?[^"'>]*captcha/;

const CONTROL = /<(input|textarea|select)\b[^>]*>/g;
/** The field a widget fills in itself. */
const WIDGET_FIELD = /\bname ?= ?["']?[a-z-]*(?:captcha|turnstile)[-_](?:response|solution)\b/;
/** The input types an image CAPTCHA's characters are typed in (digits: number or tel). */
const ANSWER_TYPES = new Set(["text", "number", "tel"]);
/** Input types that are not something to fill in. */
const NOT_FIELDS = new Set(["hidden", "submit", "button", "image", "reset", "checkbox"]);
const ITEMS = [/<a\b[^>]*\bhref ?=/g, /<li\b/g, /<tr\b/g];

function isHtml(p: Prepared): boolean {
  const type = p.headers["content-type"];
  return type === undefined || type.toLowerCase().includes("html");
}

type Widget = { marker: string; provider: string; imageField?: boolean };

function widgetOf(lower: string): Widget | null {
  const m = WIDGET_CLASS.exec(lower) ?? WIDGET_RENDER.exec(lower);
  const name = m?.[1];
  if (m && name) {
    const provider = WIDGET_PROVIDER[name] ?? name;
    return { marker: m[0].startsWith("class") ? name : `${name}.render`, provider };
  }
  const frame = WIDGET_IFRAME.exec(lower);
  if (frame) {
    const provider = frame[1] ?? (frame[0].includes("cloudflare") ? "turnstile" : "recaptcha");
    return { marker: `${provider} iframe`, provider };
  }
  if (CAPTCHA_IMAGE.test(lower))
    return { marker: "captcha image", provider: "image-captcha", imageField: true };
  return null;
}

/**
 * The page's fields to fill in besides the widget's own (its response field; an image
 * CAPTCHA's one answer field when `imageField`), counted up to 2. An image CAPTCHA without its
 * answer field is no widget: `answer` says whether one was seen.
 */
function fieldsOf(lower: string, imageField: boolean): { others: number; answer: boolean } {
  CONTROL.lastIndex = 0;
  let n = 0;
  let others = 0;
  let answer = false;
  for (let m = CONTROL.exec(lower); m; m = CONTROL.exec(lower)) {
    if (++n > MAX_CONTROLS) return { others: others + 1, answer };
    const tag = m[0];
    if (WIDGET_FIELD.test(tag)) continue; // g-recaptcha-response, cf-turnstile-response, …
    const type = m[1] !== "input" ? m[1] : (/\btype ?= ?["']?([a-z-]+)/.exec(tag)?.[1] ?? "text");
    if (type !== undefined && NOT_FIELDS.has(type)) continue;
    if (imageField && !answer && ANSWER_TYPES.has(type ?? "") && CAPTCHA_FIELD.test(tag)) {
      answer = true;
      continue;
    }
    if (++others > 1) break;
  }
  return { others, answer };
}

/** A list to read: more than CAPTCHA_PAGE_MAX_ITEMS links, list items or table rows. */
function listsItems(lower: string): boolean {
  return ITEMS.some((re) => moreThan(re, lower, CAPTCHA_PAGE_MAX_ITEMS));
}

/** More than `max` matches of `re` in `s` (stops counting at max + 1). */
function moreThan(re: RegExp, s: string, max: number): boolean {
  re.lastIndex = 0;
  let n = 0;
  while (re.exec(s)) if (++n > max) return true;
  return false;
}

/** A page with no widget that is nothing but the ask: its visible text is under this. */
export const ASK_ONLY_MAX_TEXT = 300;
/**
 * The ask as an imperative: at the start of the text or a sentence, or after "please"; "to
 * verify you are human" in running text, or the question "are you human?", is no ask.
 */
const ASK = new RegExp(
  `(?:^|[.!?:;]\\s|\\bplease,? )(?:prove|verify|confirm) (?:that )?${YOU_ARE} ${HUMAN}\\b`,
);

export function captchaPage(p: Prepared): RuleResult {
  if (p.plain || p.bytes > CAPTCHA_PAGE_MAX_BYTES || !isHtml(p)) return null;
  if (p.text.length >= CAPTCHA_PAGE_MAX_TEXT) return null;
  const phrase = PHRASES.find(([, re]) => re.test(p.text));
  if (!phrase) return null;
  const widget = widgetOf(p.lower);
  if (!widget) return null;
  const fields = fieldsOf(p.lower, widget.imageField === true);
  if (fields.others > 0 || (widget.imageField === true && !fields.answer)) return null;
  if (listsItems(p.lower)) return null;
  return verdict("challenge", widget.provider, `whole page: ${widget.marker} + "${phrase[0]}"`);
}

/**
 * An element hidden by its own markup: the `hidden` attribute, or an inline style of
 * `display: none` / `visibility: hidden` (an ASP.NET validator's message, a closed dialog).
 * Void elements have no content to hide. Nested elements of the same name end the match at
 * the first closing tag, leaving the rest shown: the stricter side.
 */
const HIDDEN_ELEMENT =
  /<(?!(?:input|img|br|hr|meta|link|source|area|base|col|embed|param|track|wbr)\b)([a-z][a-z0-9]*)\b(?=[^>]*(?:\shidden(?=[\s>=/])|\bstyle\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden)))[^>]*>[\s\S]*?<\/\1\s*>/gi;

/** The visible text (as prepare.ts makes `Prepared.text`) without hidden elements' words. */
function shownText(raw: string): string {
  const shown = raw.slice(0, GENERIC_SCAN_BYTES).replace(HIDDEN_ELEMENT, " ");
  return visibleText(shown).toLowerCase();
}

/**
 * P21: a page with no widget that is nothing but the ask (see the header), at any status. It
 * comes after Tier 3 (refusal.ts), so a refusal status's small page keeps its "suspected" word.
 */
export function askOnly(p: Prepared): RuleResult {
  if (p.plain || p.bytes > CAPTCHA_PAGE_MAX_BYTES || !isHtml(p)) return null;
  if (p.text.length >= ASK_ONLY_MAX_TEXT) return null;
  if (!ASK.test(p.text)) return null;
  // The ask must be shown: a hidden element's words (a validator's message, a dialog not yet
  // opened) are not the page a visitor sees.
  const ask = ASK.exec(shownText(p.raw));
  if (!ask) return null;
  if (fieldsOf(p.lower, false).others > 0) return null;
  if (listsItems(p.lower)) return null;
  const words = ask[0].replace(/^[.!?:;]\s/, "").trim();
  return verdict("challenge", "generic", `whole page: "${words}"`);
}
