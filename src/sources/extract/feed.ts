/**
 * RSS 2.0, RSS 1.0 (RDF), Atom and JSON Feed, detected from the content, not the URL or the
 * Content-Type (P4: a feed is preferred over a page, but many "feed URLs" answer an HTML
 * error page with 200 — that must read as "not a feed", never as an empty feed).
 */
import { decodeBody } from "../../policy/body-text.js";
import { toIsoDate } from "../dates.js";
import type { ExtractedRecord, Extraction, ReadContext } from "../record.js";
import {
  absoluteUrl,
  asTheParserReads,
  dedupeRecords,
  makeRecord,
  titleShown,
  usableBase,
  withoutMarkup,
} from "../record-id.js";
import { tooManyFeedAttributes } from "./feed-attributes.js";
import { compileStopNodesOnce } from "./feed-stop-nodes.js";
import { type AnyFeed, DetectError, parseFeed } from "./feedsmith.js";
import { parseJsonText } from "./json.js";
import { firstRead, MAX_ROWS } from "./max-rows.js";

// feedsmith's stop-node paths compiled once per parser, not at every feed (feed-stop-nodes.ts).
compileStopNodesOnce();

interface FeedItem {
  title?: string | undefined;
  link?: string | undefined;
  id?: string | undefined;
  date?: string | undefined;
  kind?: string | undefined;
  /**
   * The entry's own `xml:base`, as written: resolved (xmlBase) only for the items made into
   * records, one at a time, never kept resolved for every entry.
   */
  xmlBase?: string | undefined;
}

/** Feed text fields arrive as a string, or as `{ value }` when they carry attributes. */
function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && "value" in v) return str((v as { value: unknown }).value);
  return undefined;
}

/**
 * Strips markup some feeds leave in titles (`<b>Notice</b>`), then cleans the text; a `<` or
 * `>` of the title itself (`Purchases &lt; $50,000`) stays (record-id.ts `withoutMarkup`).
 */
function plain(s: string | undefined): string {
  return s === undefined ? "" : withoutMarkup(s);
}

/**
 * An element's base URI (XML Base §4.2): its `xml:base` resolved against its parent's base,
 * else the parent's. Atom (RFC 4287 §2) resolves an entry's relative link this way.
 *
 * P13, P14: a base longer than the longest address the checker asks for (MAX_URL_LENGTH) is not
 * used whole: what of it a link keeps is (record-id.ts usableBase: without its query, else its
 * site), or the parent's on the parent's own site. Each link resolved against a base is a new
 * string as long as the base: a feed xml:base of 1,000,000 characters over 2,000 entries cost
 * 85 s of CPU and 3.9 GB (docs/benchmarks.md).
 */
function xmlBase(attr: string | undefined, parent: string): string {
  if (attr === undefined) return parent;
  try {
    return usableBase(new URL(asTheParserReads(attr), parent).href, parent);
  } catch {
    return parent;
  }
}

function items(parsed: AnyFeed<string>): FeedItem[] {
  switch (parsed.format) {
    case "rss":
      return (parsed.feed.items ?? []).map((i) => ({
        title: str(i.title),
        link: i.link ?? (i.guid?.isPermaLink !== false ? i.guid?.value : undefined),
        id: i.guid?.value,
        date: i.pubDate ?? i.dc?.dates?.[0],
        kind: str(i.categories?.[0]?.name),
      }));
    case "rdf":
      return (parsed.feed.items ?? []).map((i) => ({
        title: i.title,
        link: i.link,
        id: i.rdf?.about,
        date: i.dc?.dates?.[0],
      }));
    case "atom": {
      return (parsed.feed.entries ?? []).map((e) => {
        const links = e.links ?? [];
        const alt = links.find((l) => !l.rel || l.rel === "alternate") ?? links[0];
        return {
          title: str(e.title),
          link: alt?.href,
          id: e.id,
          date: e.published ?? e.updated,
          kind: str(e.categories?.[0]?.term),
          xmlBase: e.xml?.base,
        };
      });
    }
    case "json":
      return (parsed.feed.items ?? []).map((i) => ({
        title: i.title ?? i.summary,
        link: i.url ?? i.external_url,
        id: i.id,
        date: i.date_published ?? i.date_modified,
        kind: i.tags?.[0],
      }));
  }
}

/**
 * A document type declaration without an internal subset (XML 1.0 §2.8 `doctypedecl` with no
 * `[…]`): a name, then a PUBLIC or SYSTEM identifier or nothing (RSS 0.91's Netscape DTD). One
 * with an internal subset (where entities are declared: XXE, "billion laughs") is not matched,
 * so such a document is "not a feed" and never reaches the parser.
 */
const DOCTYPE =
  /<!DOCTYPE\s+[^\s>[]+(?:\s+(?:PUBLIC\s+(?:"[^"]*"|'[^']*')(?:\s+(?:"[^"]*"|'[^']*'))?|SYSTEM\s+(?:"[^"]*"|'[^']*')))?\s*>/iy;
const WHITESPACE = /\s*/y;
const FEED_ROOT = /<(?:rss|rdf:RDF|feed)\b/iy;

/**
 * Where the root element starts after the prolog (XML 1.0 §2.8): whitespace, any number of
 * processing instructions (`<?xml …?>`, `<?xml-stylesheet …?>`) and comments, and at most one
 * document type declaration without an internal subset; undefined when anything else comes first.
 */
function afterProlog(t: string): number | undefined {
  let at = 0;
  let doctype = false;
  for (;;) {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(t);
    at = WHITESPACE.lastIndex;
    if (t.startsWith("<?", at)) {
      const close = t.indexOf("?>", at + 2);
      if (close === -1) return undefined;
      at = close + 2;
    } else if (t.startsWith("<!--", at)) {
      const close = t.indexOf("-->", at + 4);
      if (close === -1) return undefined;
      at = close + 3;
    } else if (!doctype && /^<!DOCTYPE/i.test(t.slice(at, at + 9))) {
      DOCTYPE.lastIndex = at;
      if (!DOCTYPE.test(t)) return undefined;
      at = DOCTYPE.lastIndex;
      doctype = true;
    } else return at;
  }
}

function looksLikeFeedText(text: string): "xml" | "json" | undefined {
  const t = text.trimStart();
  if (t.startsWith("{")) return "json";
  const root = afterProlog(t);
  if (root === undefined) return undefined;
  FEED_ROOT.lastIndex = root;
  return FEED_ROOT.test(t) ? "xml" : undefined;
}

export function extractFeed(body: Uint8Array, url: string, ctx: ReadContext = {}): Extraction {
  const text = decodeBody(body, ctx.contentType);
  const shape = looksLikeFeedText(text);
  if (!shape) return { records: [], note: "not a feed", notThisWay: true };
  let input: unknown = text;
  if (shape === "json") {
    // The one JSON reader: what is wrong with the JSON is said as every JSON way says it.
    const j = parseJsonText(text);
    if (!j.ok) return { records: [], note: `not a feed (${j.why})`, notThisWay: true };
    input = j.value;
  } else {
    // P13, P14: an element of hundreds of thousands of attributes is refused before the parse.
    const refused = tooManyFeedAttributes(text);
    if (refused) return { records: [], note: refused, notThisWay: true };
  }
  let parsed: AnyFeed<string>;
  try {
    parsed = parseFeed(input);
  } catch (e) {
    // Unrecognised content is an expected outcome (the site's answer), not our bug.
    if (e instanceof DetectError || (e instanceof Error && e.name === "MalformedError"))
      return { records: [], note: "not a feed", notThisWay: true };
    throw e;
  }
  // P13, P14: at most MAX_ROWS items made into records, as an XLSX sheet's rows (a 19 MB feed of
  // 360,000 tiny items: 6 s of CPU and 650 MB before this bound; docs/benchmarks.md).
  const all = items(parsed);
  const truncated = all.length > MAX_ROWS;
  const feedBase = parsed.format === "atom" ? xmlBase(parsed.feed.xml?.base, url) : url;
  const out: ExtractedRecord[] = [];
  for (const it of truncated ? all.slice(0, MAX_ROWS) : all) {
    const link = absoluteUrl(it.link, xmlBase(it.xmlBase, feedBase));
    const title = titleShown(plain(it.title)) || link;
    if (!title) continue;
    const date = it.date ? toIsoDate(it.date, { zone: ctx.zone }) : undefined;
    out.push(makeRecord({ title, platformId: it.id, url: link, date, kind: plain(it.kind) }));
  }
  const records = dedupeRecords(out);
  if (records.length === 0) return { records, note: "feed has no items" };
  return truncated ? { records, note: firstRead("items of the feed") } : { records };
}
