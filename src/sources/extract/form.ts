/**
 * Public search forms (P5): the request a visitor's browser would send — the form's own
 * controls as the HTML form-submission algorithm collects them (hidden ASP.NET state such as
 * __VIEWSTATE, __EVENTVALIDATION, __VIEWSTATEGENERATOR replayed as given), the spec's fields
 * filled in, and for ASP.NET pagers the `__doPostBack(target, 'Page$N')` a click would send.
 * The page is read in its charset (the one body decoder) and the form is sent back in it, as
 * a browser sends a windows-1252 page's form in windows-1252 (its `accept-charset`, when it
 * names one, first).
 */
import type { CheerioAPI } from "cheerio";
import { type Element, isTag } from "domhandler";
import { bodyEncoding, decodeBody, encodingName, formUrlencoded } from "../../policy/body-text.js";
import { credentialEntry } from "../../policy/credentials.js";
import type { FormSpec } from "../catalog/schema.js";
import { load, TooCostlyToParse } from "./cheerio-load.js";
import { descendantsWhere, walkDescendants } from "./descendants.js";
import { fillDateTemplates } from "./form-dates.js";
import { documentBase, formTarget } from "./form-target.js";

export interface FormRequest {
  method: "GET" | "POST";
  url: string;
  body?: string;
  contentType?: string;
}

const FORM_URLENCODED = "application/x-www-form-urlencoded";
/** Controls a browser never submits on its own (HTML §4.10.21.4 "constructing the entry list"). */
const NOT_SUBMITTED = new Set(["submit", "button", "image", "reset", "file"]);

type Form = ReturnType<CheerioAPI>;

function findForm($: CheerioAPI, spec: FormSpec, pageUrl: string): Form {
  const form = $(spec.selector ?? "form")
    .filter("form")
    .first();
  if (form.length === 0) {
    // Broken configuration, not a site outcome: the recipe names a form this page lacks.
    throw new Error(`no <form> matches ${JSON.stringify(spec.selector ?? "form")} at ${pageUrl}`);
  }
  return form;
}

/** The entry list of a form, in document order, as a browser builds it. */
export function formEntries($: CheerioAPI, form: Form): [string, string][] {
  const out: [string, string][] = [];
  // One walk of the form's subtree, not cheerio's `.find()`, quadratic over many sibling
  // controls (40,000 inputs: 16 s and more of CPU; descendants.ts, P13, P14).
  walkDescendants(form.toArray(), (el) => {
    if (el.name !== "input" && el.name !== "select" && el.name !== "textarea") return false;
    const name = el.attribs.name;
    if (!name || el.attribs.disabled !== undefined || inDisabledFieldset(el)) return false;
    if (el.name === "select") {
      const opts = descendantsWhere([el], (o) => o.name === "option");
      let chosen = opts.filter((o) => o.attribs.selected !== undefined);
      if (chosen.length === 0 && el.attribs.multiple === undefined) chosen = opts.slice(0, 1);
      for (const o of chosen) out.push([name, o.attribs.value ?? $(o).text().trim()]);
      return false;
    }
    if (el.name === "textarea") {
      out.push([name, $(el).text()]);
      return false;
    }
    const type = (el.attribs.type ?? "text").toLowerCase();
    if (NOT_SUBMITTED.has(type)) return false;
    if ((type === "checkbox" || type === "radio") && el.attribs.checked === undefined) return false;
    out.push([name, el.attribs.value ?? (type === "checkbox" || type === "radio" ? "on" : "")]);
    return false;
  });
  return out;
}

/** Whether a `<fieldset disabled>` holds the control (`closest("fieldset[disabled]")`). */
function inDisabledFieldset(el: Element): boolean {
  for (let p = el.parent; p; p = p.parent)
    if (isTag(p) && p.name === "fieldset" && p.attribs.disabled !== undefined) return true;
  return false;
}

/**
 * P3: a form the checker never submits, and why: one that would send a password (a password
 * input the browser would submit, not disabled, with a value: the page's or the recipe's; the
 * checker never signs in), or one whose entries would send a credential (a field named as the
 * catalog's credential parameters, an `api_key` or an `access_token`, with a value:
 * policy/credentials.ts, the rule the fetch pipeline holds every request to; a POST form's
 * anti-forgery `_token` is none, a GET form's goes in the URL and is). Names the field, never
 * its value.
 *
 * P5: a form that merely holds an empty password input is submitted as a browser submits it,
 * the password box empty: a whole-page ASP.NET form (`<form id="aspnetForm">` around the page)
 * whose header holds a login box is searched by its search button, and the browser sends the
 * empty user name and password with the search, and the clicked button alone (HTML §4.10.21.4):
 * no password goes out, and no one signs in.
 */
export class NotSubmitted extends Error {
  override name = "NotSubmitted";
}

function notSubmittable(
  form: Form,
  entries: [string, string][],
  pageUrl: string,
  method: "GET" | "POST",
): string | undefined {
  const passwords = new Set<string>();
  walkDescendants(form.toArray(), (el) => {
    if (el.name !== "input") return false;
    const type = (el.attribs.type ?? "").trim().toLowerCase();
    const name = el.attribs.name;
    if (type === "password" && name) passwords.add(name);
    return false;
  });
  const password = entries.find(([name, value]) => value !== "" && passwords.has(name));
  if (password !== undefined)
    return `the form at ${pageUrl} would send a password (its password input ${JSON.stringify(password[0])} holds one): the checker never signs in and never sends a password (P3), so it was not submitted`;
  const credential = credentialEntry(entries, { formBody: method === "POST" });
  return credential === undefined
    ? undefined
    : `the form at ${pageUrl} would send the credential field ${JSON.stringify(credential)} with a value: the checker never sends keys, tokens or passwords (P3), so it was not submitted`;
}

/** Sets a field, replacing an existing entry in place or appending a new one. */
function setEntry(entries: [string, string][], name: string, value: string): void {
  const i = entries.findIndex(([n]) => n === name);
  if (i === -1) entries.push([name, value]);
  else entries[i] = [name, value];
}

/** The page as text, and the encoding its forms are sent in. */
interface ReadPage {
  $: CheerioAPI;
  encoding: string;
}

function readPage(body: Uint8Array, contentType: string | undefined): ReadPage {
  return { $: load(decodeBody(body, contentType)), encoding: bodyEncoding(body, contentType) };
}

/** HTML §4.10.21.6 "pick an encoding for the form": its accept-charset first, else the page's. */
function formEncoding(form: Form, page: string): string {
  for (const label of (form.attr("accept-charset") ?? "").split(/\s+/)) {
    const known = label ? encodingName(label) : undefined;
    if (known) return known;
  }
  return page;
}

function toRequest(
  action: string,
  form: Form,
  method: "GET" | "POST",
  entries: [string, string][],
  encoding: string,
): FormRequest {
  const encoded = formUrlencoded(entries, formEncoding(form, encoding));
  if (method === "GET") {
    const u = new URL(action);
    u.search = encoded; // GET replaces the action's query (HTML §4.10.21.3, "mutate action URL")
    return { method, url: u.href };
  }
  return { method, url: action, body: encoded, contentType: FORM_URLENCODED };
}

function methodOf(form: Form, spec: FormSpec): "GET" | "POST" {
  return spec.method ?? ((form.attr("method") ?? "get").toLowerCase() === "post" ? "POST" : "GET");
}

export function buildFormRequest(
  formPage: Uint8Array,
  pageUrl: string,
  spec: FormSpec,
  now: number,
  /** The form page's Content-Type: its charset decides how the page is read and answered. */
  contentType?: string,
): FormRequest {
  const { $, encoding } = readPage(formPage, contentType);
  const form = findForm($, spec, pageUrl);
  const entries = formEntries($, form);
  for (const [name, value] of Object.entries(spec.fields ?? {})) {
    setEntry(
      entries,
      name,
      fillDateTemplates(value, now, { format: spec.dateFormat, zone: spec.zone }),
    );
  }
  if (spec.eventTarget !== undefined) {
    setEntry(entries, "__EVENTTARGET", spec.eventTarget);
    setEntry(entries, "__EVENTARGUMENT", "");
  }
  let formaction: string | undefined;
  if (spec.submit !== undefined) {
    const button = submitButton($, form, spec.submit);
    const given = Object.hasOwn(spec.fields ?? {}, spec.submit);
    // P5: a visitor presses a button the form has; one it lacks (the catalog's name misspelt,
    // or a control that submits nothing: a text box, a plain or reset button) would be sent
    // as a field no browser sends, a search the site does not run, read night after night as
    // a list without records. Broken configuration: nothing is submitted. A button the page's
    // script adds, given with its value under form.fields, is sent as given there.
    if (button === undefined && !given)
      throw new Error(
        `the form at ${pageUrl} has no button named ${JSON.stringify(spec.submit)} (the catalog's form.submit): a visitor could not press it, so nothing was submitted; write the name as the page writes it (a button the page's script adds: its name and value under form.fields)${buttonNames($, form)}`,
      );
    if (button !== undefined) {
      if (button.attr("type")?.trim().toLowerCase() === "image") {
        // An image button's click is sent as where it was clicked, never as its value (HTML
        // §4.10.21.4): ASP.NET's ImageButton is pressed by `name.x` and `name.y`.
        setEntry(entries, `${spec.submit}.x`, "0");
        setEntry(entries, `${spec.submit}.y`, "0");
      } else setEntry(entries, spec.submit, button.attr("value") ?? button.text().trim());
      formaction = button.attr("formaction");
    }
  }
  const refused = notSubmittable(form, entries, pageUrl, methodOf(form, spec));
  if (refused !== undefined) throw new NotSubmitted(refused);
  const action = formTarget(form.attr("action"), pageUrl, documentBase($, pageUrl), formaction);
  if (action === undefined)
    throw new Error(
      `the form at ${pageUrl} is sent to ${JSON.stringify(formaction ?? form.attr("action"))}, which is no web address (a browser sends no search there): nothing was submitted`,
    );
  return toRequest(action, form, methodOf(form, spec), entries, encoding);
}

/** Whether a control submits its form when pressed (a submit or image input, a submit button). */
function isSubmitButton($: CheerioAPI, el: Element): boolean {
  const type = ($(el).attr("type") ?? "").trim().toLowerCase();
  if (el.tagName === "input") return type === "submit" || type === "image";
  // A <button> without a type, or of a type the page misspells, is a submit button (HTML).
  return el.tagName === "button" && type !== "button" && type !== "reset";
}

/**
 * The form's submit buttons: those inside it, and those outside it that name it (`form="id"`),
 * in document order.
 */
function submitButtons($: CheerioAPI, form: Form): Element[] {
  const id = form.attr("id");
  const inside = descendantsWhere(
    form.toArray(),
    (el) => el.name === "button" || el.name === "input",
  );
  const outside =
    id === undefined
      ? []
      : $("button[form], input[form]")
          .toArray()
          .filter(
            (el) =>
              $(el).attr("form") === id &&
              !form.get().some((f) => $(el).closest("form").get(0) === f),
          );
  return [...inside, ...outside].filter((el) => isSubmitButton($, el));
}

/** The submit button of the form named `name`, the first, if any. */
function submitButton($: CheerioAPI, form: Form, name: string): Form | undefined {
  const el = submitButtons($, form).find((b) => $(b).attr("name") === name);
  return el === undefined ? undefined : $(el);
}

/** The form's buttons by name, said after a form.submit it lacks (`; its buttons: "a", "b"`). */
function buttonNames($: CheerioAPI, form: Form): string {
  const names = new Set<string>();
  for (const el of submitButtons($, form)) names.add($(el).attr("name") ?? "");
  names.delete("");
  const shown = [...names].slice(0, 5).map((n) => JSON.stringify(n));
  return shown.length === 0
    ? "; the form has no named button"
    : `; its buttons: ${shown.join(", ")}`;
}

const POSTBACK = /__doPostBack\(\s*['"]([^'"]*)['"]\s*,\s*['"]([^'"]*)['"]\s*\)/;

/** Every `__doPostBack(target, argument)` on the page, from links and onclick handlers. */
export function postbacks($: CheerioAPI): { target: string; argument: string }[] {
  const out: { target: string; argument: string }[] = [];
  $("[href*='__doPostBack'], [onclick*='__doPostBack']").each((_, el) => {
    const m = POSTBACK.exec($(el).attr("href") ?? $(el).attr("onclick") ?? "");
    if (m) out.push({ target: m[1]!, argument: m[2]! });
  });
  return out;
}

/**
 * The request for the page after `currentPage` of an ASP.NET GridView result (P5: "turn its
 * result pages the way a visitor would"), or undefined on the last page. The form on the
 * result page carries the search as the server echoed it; only the postback is added.
 */
export function nextPagerRequest(
  resultPage: Uint8Array,
  pageUrl: string,
  spec: FormSpec,
  currentPage: number,
  contentType?: string,
): FormRequest | undefined {
  const wanted = `Page$${currentPage + 1}`;
  return pagerRequest(
    resultPage,
    pageUrl,
    spec,
    contentType,
    (all) => all.find((p) => p.argument === wanted) ?? all.find((p) => p.argument === "Page$Next"),
  );
}

/** A GridView pager's argument that names its page (`Page$7`), not a step (`Page$Next`). */
const NUMBERED = /^Page\$[1-9][0-9]*$/;

/** The page a numbered pager argument names (`Page$7`: 7). */
const pageOf = (argument: string): number => Number(argument.slice("Page$".length));

/**
 * P5, P7: the click on `resultPage` (tonight's result page, page `current` of the results) that
 * shows the result page a postback from an earlier night asked for (`earlier`, its urlencoded
 * body): the link with the same target and numbered argument (`Page$17`), sent with tonight's
 * page state, as a visitor would click it. Where the page shows no link to it (a GridView's
 * pager shows ten page numbers at a time, the next ten behind a "..." link to `Page$11`), the
 * link furthest towards it, past `current` (`hop`: a visitor's click on the way there). The
 * state an earlier night's page carried (its __VIEWSTATE, its __EVENTVALIDATION, the session
 * it belonged to) is never sent again. Undefined when tonight's page shows no way towards it.
 */
export function pagerRequestAgain(
  resultPage: Uint8Array,
  pageUrl: string,
  spec: FormSpec,
  earlier: string,
  current: number,
  contentType?: string,
): (FormRequest & { page: number; hop: boolean }) | undefined {
  const asked = new URLSearchParams(earlier);
  const target = asked.get("__EVENTTARGET");
  const argument = asked.get("__EVENTARGUMENT");
  if (!target || argument === null || !NUMBERED.test(argument)) return undefined;
  const wanted = pageOf(argument);
  let chosen: number | undefined;
  const fr = pagerRequest(resultPage, pageUrl, spec, contentType, (all) => {
    const numbered = all.filter((p) => p.target === target && NUMBERED.test(p.argument));
    const exact = numbered.find((p) => p.argument === argument);
    if (exact) {
      chosen = wanted;
      return exact;
    }
    let best: { target: string; argument: string } | undefined;
    for (const p of numbered) {
      const n = pageOf(p.argument);
      if (n > current && n < wanted && (chosen === undefined || n > chosen)) {
        chosen = n;
        best = p;
      }
    }
    return best;
  });
  if (!fr || chosen === undefined) return undefined;
  return { ...fr, page: chosen, hop: chosen !== wanted };
}

/** The postback of the pager link `pick` chooses on a result page, with that page's form. */
function pagerRequest(
  resultPage: Uint8Array,
  pageUrl: string,
  spec: FormSpec,
  contentType: string | undefined,
  pick: (
    all: { target: string; argument: string }[],
  ) => { target: string; argument: string } | undefined,
): FormRequest | undefined {
  let page: ReadPage;
  try {
    page = readPage(resultPage, contentType);
  } catch (err) {
    // A result page nested too deeply to parse (cheerio-load.ts): its reader said so, and it
    // shows no pager that can be turned.
    if (err instanceof TooCostlyToParse) return undefined;
    throw err;
  }
  const { $, encoding } = page;
  const all = postbacks($).filter((p) => spec.pager === undefined || p.target === spec.pager);
  const hit = pick(all);
  if (!hit) return undefined;
  const form = findForm($, spec, pageUrl);
  const entries = formEntries($, form);
  setEntry(entries, "__EVENTTARGET", hit.target);
  setEntry(entries, "__EVENTARGUMENT", hit.argument);
  // P3: a pager whose form would send a password or a credential turns no page: the
  // list, as far as the checker reads it, ends there (as at a next link off the list).
  if (notSubmittable(form, entries, pageUrl, "POST") !== undefined) return undefined;
  // A pager whose form is sent nowhere a browser would send it turns no page.
  const action = formTarget(form.attr("action"), pageUrl, documentBase($, pageUrl));
  return action === undefined ? undefined : toRequest(action, form, "POST", entries, encoding);
}
