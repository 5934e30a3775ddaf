/**
 * Shared record helpers for every extractor (generic ways in and platform presets): a stable
 * id, links made absolute and safe, duplicates dropped, text cleaned. P6: links are noted,
 * never followed, so a bad link only ever becomes "no link".
 */
import { createHash } from "node:crypto";
import { MAX_RECORD_ID_LENGTH, MAX_URL_LENGTH } from "../policy/constants.js";
import { decodeHTML } from "../policy/html-entities.js";
import { shownText } from "../policy/shown-text.js";
import type { ExtractedRecord } from "./record.js";

/**
 * The platform's id, else the absolute link, else `h:` + the first 16 hex of sha256(title|date).
 * P6, P11: a record without a link is known by what its own row writes, so the `date` hashed is
 * the one its row reads as alone (page.ts: day-first or month-first as that value alone decides,
 * month-first when it does not), never the page's reading of it, which a row added or gone
 * elsewhere on the page can turn (`01/02/2026` is 1 February on a page that also writes
 * `13/02/2026`). The same id as before for every date but one such ambiguous value on a page read
 * day-first, which is listed new once, under its new id (docs/catalog.md "Record ids").
 */
export function recordId(r: {
  platformId?: string;
  url?: string;
  title: string;
  date?: string;
}): string {
  const pid = r.platformId?.trim();
  if (pid) return bounded(pid);
  if (r.url) return bounded(r.url);
  const digest = createHash("sha256")
    .update(`${r.title}|${r.date ?? ""}`)
    .digest("hex");
  return `h:${digest.slice(0, 16)}`;
}

/**
 * An id as it is, or `l:` and its SHA-256 (hex) when it is longer than MAX_RECORD_ID_LENGTH bytes: the
 * store keys records by it (PostgreSQL refuses a B-tree key of more than 2,704 bytes; one such
 * record lost its whole source's records every night). The same id every night all the same.
 */
function bounded(id: string): string {
  // In bytes, as PostgreSQL counts its keys (a 1,024-character id in CJK is 3,072 bytes).
  if (Buffer.byteLength(id, "utf8") <= MAX_RECORD_ID_LENGTH) return id;
  return `l:${createHash("sha256").update(id).digest("hex")}`;
}

/**
 * The URL parser's own clean-up of its input (WHATWG URL §4.4, basic URL parser): ASCII tab,
 * line feed and carriage return removed wherever they are, C0 controls and spaces trimmed at
 * both ends. An `href` that wraps (`/docs/Agenda\n2026-11-03.pdf`) is the link a browser
 * follows (`/docs/Agenda2026-11-03.pdf`), not one with a space in it.
 */
export function asTheParserReads(s: string): string {
  return s.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
}

/**
 * Resolves `href` against `base` and keeps it only if it is http(s): `javascript:`, `mailto:`,
 * `data:` and friends are not records. The fragment is dropped (it names a spot on the same page).
 * Read as the URL parser reads it (`asTheParserReads`), then cleaned as text.
 */
export function absoluteUrl(href: string | undefined, base: string): string | undefined {
  if (href === undefined) return undefined;
  const h = cleanText(asTheParserReads(href));
  if (h === "" || h.startsWith("#")) return undefined;
  let u: URL;
  try {
    u = new URL(h, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
  u.hash = "";
  return u.href;
}

/**
 * P6, P13, P14: the base a document's relative links resolve against, from the base it names
 * (`href`, already resolved) and the one around it (`parent`: the feed's, the page's address).
 * One longer than MAX_URL_LENGTH is not used whole (each link resolved against it would be a
 * string as long), but what of it a link keeps is: the base without its query and fragment (no
 * link with a path of its own keeps them), else its site (all a path-absolute link keeps). The
 * parent's stands only for a base on the parent's own site, or one that is no web address: a
 * relative link is never given another site's host than the one its document named.
 */
export function usableBase(href: string, parent: string): string {
  if (href.length <= MAX_URL_LENGTH) return href;
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return parent;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return parent;
  u.search = "";
  u.hash = "";
  if (u.href.length <= MAX_URL_LENGTH) return u.href;
  const site = `${u.origin}/`;
  if (site.length > MAX_URL_LENGTH) return parent;
  try {
    if (new URL(parent).origin === u.origin) return parent;
  } catch {
    // A parent that is no address: the base's own site.
  }
  return site;
}

/**
 * A record from what a list shows: the id is the platform's, else the link, else a hash of
 * title and date (recordId); absent fields stay absent. Every extractor builds records here.
 * `idDate`, when given, is the date the id is made of instead of `date` (page.ts: the date as
 * its own row reads it, where `date` is as the whole page reads it).
 */
export function makeRecord(r: {
  title: string;
  platformId?: string | undefined;
  url?: string | undefined;
  date?: string | undefined;
  idDate?: string | undefined;
  kind?: string | undefined;
}): ExtractedRecord {
  const idDate = "idDate" in r ? r.idDate : r.date;
  const rec: ExtractedRecord = {
    id: recordId({
      ...(r.platformId ? { platformId: r.platformId } : {}),
      ...(r.url ? { url: r.url } : {}),
      title: r.title,
      ...(idDate ? { date: idDate } : {}),
    }),
    // Stored as shown; the id above is the one earlier nights gave the same item.
    title: shownText(r.title),
  };
  if (r.date) rec.date = r.date;
  if (r.url) rec.url = r.url;
  if (r.kind) rec.kind = r.kind;
  return rec;
}

/**
 * A title as a reader found it, or undefined when nothing of it would be shown (only controls
 * or noncharacters: policy/shown-text.ts), so the reader takes it as no title and falls back
 * as it does for a missing one (a feed item's link, a list item's link text).
 */
export function titleShown(title: string | undefined): string | undefined {
  return title !== undefined && shownText(title) !== "" ? title : undefined;
}

/**
 * Keeps the first record of each id (a list often repeats an item in a "featured" box).
 *
 * `splitSharedLinks` (a list's rows, read by a recipe): rows whose id is their link, where one
 * link is shared by rows that show different records (another title or date: two agendas that
 * link the same meetings page, a list whose every row links to one calendar) are each a record
 * of their own, known by the link and a hash of their title and date (`LINK#` + 16 hex), not
 * merged into the first. The same row repeated (the same title and date) is still one record. A
 * link only one record shows keeps its id as before, so only a list that starts to share one
 * lists that link's record again, once, under its new id (docs/catalog.md "Record ids").
 */
export function dedupeRecords(
  rs: ExtractedRecord[],
  opts: {
    splitSharedLinks?: boolean;
    /**
     * The date a row's own text reads as alone (page.ts), hashed into a split id: never the
     * page's reading, which a row added or gone elsewhere can turn (recordId).
     */
    ownDate?: (r: ExtractedRecord) => string | undefined;
  } = {},
): ExtractedRecord[] {
  const shared = opts.splitSharedLinks ? sharedLinks(rs) : undefined;
  const seen = new Set<string>();
  const out: ExtractedRecord[] = [];
  for (const r0 of rs) {
    const r =
      shared?.has(r0.id) === true && r0.url !== undefined
        ? {
            ...r0,
            id: bounded(
              `${r0.url}#${shownHash(r0.title, opts.ownDate ? opts.ownDate(r0) : r0.date)}`,
            ),
          }
        : r0;
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out;
}

/** The links (ids that are their record's link) that rows showing different records share. */
function sharedLinks(rs: readonly ExtractedRecord[]): Set<string> {
  const shown = new Map<string, string>();
  const out = new Set<string>();
  for (const r of rs) {
    if (r.url === undefined || r.id !== bounded(r.url)) continue;
    const what = `${r.title}\u0000${r.date ?? ""}`;
    const first = shown.get(r.id);
    if (first === undefined) shown.set(r.id, what);
    else if (first !== what) out.add(r.id);
  }
  return out;
}

function shownHash(title: string, date: string | undefined): string {
  return createHash("sha256")
    .update(`${title}|${date ?? ""}`)
    .digest("hex")
    .slice(0, 16);
}

/**
 * The elements a title's stray markup is made of: HTML's (the obsolete ones too), SVG's and
 * MathML's roots, Word's `xml` and its namespaced ones (`o:p`, `st1:place`), and custom elements
 * (a name with a hyphen).
 */
const TAG_NAMES = [
  "a|abbr|acronym|address|area|article|aside|audio|b|base|bdi|bdo|big|blink|blockquote|body|br",
  "button|canvas|caption|center|cite|code|col|colgroup|data|datalist|dd|del|details|dfn|dialog",
  "dir|div|dl|dt|em|embed|fieldset|figcaption|figure|font|footer|form|frame|frameset|h[1-6]",
  "head|header|hgroup|hr|html|i|iframe|img|input|ins|kbd|label|legend|li|link|main|map|mark",
  "marquee|math|menu|meta|meter|nav|nobr|noscript|object|ol|optgroup|option|output|p|param",
  "picture|pre|progress|q|rp|rt|ruby|s|samp|script|search|section|select|slot|small|source",
  "span|strike|strong|style|sub|summary|sup|svg|table|tbody|td|template|textarea|tfoot|th",
  "thead|time|title|tr|track|tt|u|ul|var|video|wbr|xml",
  // Word's namespaces (o:p, st1:place, w:Sdt, v:shape, m:oMath, u1:p, x:str).
  "(?:o|w|v|m|x|st\\d|u\\d):[a-z][a-z0-9-]*|[a-z][a-z0-9]*-[a-z0-9-]*",
].join("|");

/**
 * A tag at a `<`: a known element's name (TAG_NAMES) then `>`, `/>`, or attributes (something
 * written with `=`, up to the `>`); or an end tag, `</name>`. So `<b>`, `<br/>`, `<span
 * class="x">` and `</p>` are markup, while a title's own `<Section 2>`, `<Phase 2>` or `<Time
 * TBD>` is text. Attributes stop at the next `<` or `>`, so each `<` is looked at once.
 */
const TAG = new RegExp(
  `<(?:(?:${TAG_NAMES})(?:\\s*\\/?|\\s[^<>]*=[^<>]*)|\\/(?:${TAG_NAMES})\\s*)>`,
  "iy",
);

/** Where each kind of markup that is no tag ends: a comment, CDATA, a declaration, a PI. */
const OTHER_MARKUP: readonly [open: string, close: string, keep: boolean][] = [
  ["<!--", "-->", false],
  // Its text is the title's (a feed that wraps a title in CDATA twice).
  ["<![CDATA[", "]]>", true],
  ["<!DOCTYPE", ">", false],
  ["<?", "?>", false],
];

/**
 * Text with the markup some sites leave in it (`<b>Notice</b>`, `<o:p></o:p>`, a comment) taken
 * out, then cleaned; a `<` or `>` of the text itself (`Purchases < $50,000 and > $10,000`,
 * `Road Closure <Phase 2>`) stays. One pass: each `<` is looked at once, and where a comment or
 * the like opens and does not close, nothing after it can (a title of `&lt;!--` written a million
 * times is read once, not a million times over).
 */
export function withoutMarkup(s: string): string {
  let out = "";
  let at = 0;
  for (let lt = s.indexOf("<"); lt !== -1; lt = s.indexOf("<", Math.max(lt + 1, at))) {
    if (lt < at) continue;
    // Each opening written in capitals: `<!doctype` is `<!DOCTYPE`.
    const other = OTHER_MARKUP.find(
      ([open]) => s.slice(lt, lt + open.length).toUpperCase() === open,
    );
    if (other) {
      const [open, close, keep] = other;
      const end = s.indexOf(close, lt + open.length);
      if (end === -1) break;
      out += `${s.slice(at, lt)} ${keep ? s.slice(lt + open.length, end) : ""} `;
      at = end + close.length;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(s);
    if (m === null) continue;
    out += `${s.slice(at, lt)} `;
    at = lt + m[0].length;
  }
  return cleanText(out + s.slice(at));
}

/**
 * Collapses whitespace (including no-break and zero-width spaces), trims, and decodes the
 * entities that survive when a page double-escapes (`&amp;amp;`) or cheerio's `.text()` is
 * given escaped text inside CDATA or attributes.
 */
export function cleanText(s: string): string {
  let out = s;
  // Twice at most: `&amp;amp;` is a page that escaped once too often, not text about "&amp;".
  for (let i = 0; i < 2 && /&(#\d+|#x[0-9a-f]+|[a-z]+);/i.test(out); i++) out = decodeHTML(out);
  return out
    .replace(/\u200b|\u200c|\u200d|\ufeff/g, "")
    .replace(/[\s\u00a0]+/g, " ")
    .trim();
}
