/**
 * ASP.NET WebForms postbacks (P5: a form is filled in the way a visitor's browser would):
 * every `<input type="hidden">` of the form is sent back as it came (`__VIEWSTATE`,
 * `__EVENTVALIDATION`, …), plus `__EVENTTARGET`/`__EVENTARGUMENT` and the changed fields.
 * Read from the page's one parse, never by fetching anything.
 */
import type { CheerioAPI } from "cheerio";
import type { AnyNode } from "domhandler";
import { formUrlencoded } from "../../../policy/body-text.js";
import { firstDescendant, walkDescendants } from "../../extract/descendants.js";
import { documentBase, formTarget } from "../../extract/form-target.js";

export interface PostbackForm {
  /** Absolute form action. */
  action: string;
  /** The fields a browser would send back unchanged, in page order. */
  hidden: [string, string][];
  /** The encoding the page was read in: the postback is sent in it, as a browser does. */
  encoding: string;
}

/**
 * The page's ASP.NET server form: the one holding `__VIEWSTATE` (WebForms has one), else the
 * form around `near` (the grid that was read), else the page's only form. A site search in
 * the page header is another form, never posted back to (P5: as a visitor's browser would).
 */
export function readForm(
  $: CheerioAPI,
  pageUrl: string,
  near?: AnyNode,
  encoding = "utf-8",
): PostbackForm | undefined {
  // One walk of each form, not cheerio's `.find()`, quadratic over many sibling inputs (P13, P14).
  const server = $("form").filter(
    (_, f) =>
      firstDescendant([f], (el) => el.name === "input" && el.attribs.name === "__VIEWSTATE") !==
      undefined,
  );
  const around = near ? $(near).closest("form") : $([]);
  const all = $("form");
  const form =
    server.length === 1 ? server : around.length === 1 ? around : all.length === 1 ? all : $([]);
  if (form.length === 0) return undefined;
  // Where a browser would send it (no http(s) address: none, so no page is turned).
  const action = formTarget(form.attr("action"), pageUrl, documentBase($, pageUrl));
  if (action === undefined) return undefined;
  const hidden: [string, string][] = [];
  // Hidden fields, and the text boxes a browser would send too (Telerik combos keep their
  // shown value in one); disabled controls are not sent (HTML §4.10.18.3 "constructing the
  // entry list").
  walkDescendants(form.toArray(), (el) => {
    const name = el.attribs.name;
    if (el.name !== "input" || name === undefined) return false;
    const type = (el.attribs.type ?? "text").toLowerCase();
    if ((type !== "hidden" && type !== "text") || el.attribs.disabled !== undefined) return false;
    hidden.push([name, el.attribs.value ?? ""]);
    return false;
  });
  return { action, hidden, encoding };
}

/** The urlencoded body: hidden fields with `set` applied over them (set wins, order kept). */
export function postbackBody(form: PostbackForm, set: Record<string, string>): string {
  const p: [string, string][] = [];
  const done = new Set<string>();
  for (const [k, v] of form.hidden) {
    if (done.has(k)) continue;
    done.add(k);
    p.push([k, Object.hasOwn(set, k) ? set[k]! : v]);
  }
  for (const [k, v] of Object.entries(set)) if (!done.has(k)) p.push([k, v]);
  return formUrlencoded(p, form.encoding);
}
