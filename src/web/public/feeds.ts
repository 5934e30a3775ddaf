/**
 * Feeds (Atom, RSS 2.0, JSON Feed 1.1) of any list of records the directory shows: what is
 * new (statewide, per county, government, kind of records or source) and any search. Built by
 * feedsmith. Three rules hold whatever the records hold:
 * - valid XML: characters XML 1.0 forbids (§2.2 Char: C0 controls but tab, CR, LF; lone
 *   surrogates; U+FFFE/U+FFFF) are removed from every text;
 * - text, not HTML: RSS descriptions are HTML by convention (RSS 2.0 spec, "item"), so our
 *   plain text is HTML-escaped first; RSS titles (and links, guids, categories) are plain text
 *   with `&`, `<`, `>` as hexadecimal character references (`rssPlainText`); Atom uses
 *   type="text"; JSON Feed uses content_text;
 * - links from the configured public origin (`--origin`), never from the request's Host.
 * Item ids are stable (source id + record id), so readers never see an item twice. A list whose
 * filter names what left the catalog holds one item that is not a record, saying so
 * (`FeedNotice`, src/web/public/retired.tsx).
 */
import { generateAtomFeed, generateJsonFeed, generateRssFeed } from "feedsmith";
import type { NewRecord } from "../../store/read/new-records.js";
import { dateEt, httpHref, isolated, ownKind, recordsLabel } from "./format.js";

export type FeedFormat = "atom" | "rss" | "json";
export const FEED_FORMATS: readonly FeedFormat[] = ["atom", "rss", "json"];

export const FEED_CONTENT_TYPES: Record<FeedFormat, string> = {
  atom: "application/atom+xml; charset=utf-8",
  rss: "application/rss+xml; charset=utf-8",
  json: "application/feed+json; charset=utf-8",
};

/** XML 1.0 §2.2: everything outside Char is removed (also from JSON, for the same text). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(s: string): string {
  return s.replace(NOT_XML_CHAR, "");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Stable across hosts and formats: the same record is the same item everywhere, named by the id
 * it was first listed under, and the source id it was first listed under (a record whose link
 * its site wrote anew, or whose source's id the catalog renamed, P6, is not a new item).
 */
export function itemId(r: {
  sourceId: string;
  recordId: string;
  firstId?: string;
  firstSourceId?: string;
}): string {
  return `urn:new-on-record:record:${encodeURIComponent(r.firstSourceId ?? r.sourceId)}:${encodeURIComponent(r.firstId ?? r.recordId)}`;
}

export interface FeedSpec {
  /** The configured public origin, e.g. https://newonrecord.com. */
  origin: string;
  /** Stable feed id (a URN of the list and its filter). */
  id: string;
  title: string;
  description: string;
  /** The HTML page of the same list, e.g. `/new?county=Licking`. */
  pagePath: string;
  /** This feed in a format, e.g. `/new.atom?county=Licking`. */
  selfPath: (format: FeedFormat) => string;
  items: readonly NewRecord[];
  /**
   * Items before the records that are not records: the list's scope left the catalog
   * (retired.tsx), or each of its record pages not read, one item a page (not-read.tsx).
   */
  notices?: readonly FeedNotice[];
  updated: Date;
}

/** A feed's item that tells the reader about the list itself, not a record. */
export interface FeedNotice {
  /** Stable, never a record's (`urn:new-on-record:retired:…`). */
  id: string;
  title: string;
  text: string;
  /** An absolute link, from the configured origin. */
  link: string;
  at: Date;
}

function summaryOf(r: NewRecord): string {
  const where = `${isolated(r.governmentName)}${r.county ? `, ${isolated(r.county)} County` : ""}`;
  const date = r.date ? ` Dated ${dateEt(r.date)}.` : "";
  // The record's own kind first where its page lists more than one kind (agenda or minutes).
  const own = ownKind(r);
  const kind = own ? `${recordsLabel(own)}. ` : "";
  return xmlText(
    `${kind}${r.sourceName ? isolated(r.sourceName) : r.sourceRecords} of ${where}.${date}`,
  );
}

/**
 * When an item last changed as a reader sees it: when its record was brought up to date
 * (retitled, redated, another kind: P6), else when it was first seen. RFC 4287 §4.2.15: an
 * entry's `updated` is its latest significant change, so a reader that holds the entry (the same
 * id: a record is never new again) takes the new title.
 */
export const changedOf = (r: { firstSeenAt: string; changedAt?: string }): string =>
  r.changedAt !== undefined && r.changedAt > r.firstSeenAt ? r.changedAt : r.firstSeenAt;

/** An item's category: the record's own kind where it says more than its page's. */
const categoryOf = (r: NewRecord): string => ownKind(r) ?? r.sourceRecords;

/** P6: the item links to the record's own page (for people); else to its source's page. */
function linkOf(origin: string, r: NewRecord): string {
  return httpHref(r.url) ?? `${origin}/sources/${encodeURIComponent(r.sourceId)}`;
}

/**
 * An element whose whole text is CDATA: the feed writer's form for a text holding `&`, `<` or
 * `]]>` (a `]]>` split across two sections), which it puts on lines of its own. Matched as
 * whole elements, left to right, so a text that itself reads like a tag or a CDATA section
 * (`x > <![CDATA[y`) is never taken for one.
 */
const CDATA_ELEMENT =
  /<([A-Za-z][\w:.-]*)((?:\s[^<>]*)?)>\s*((?:<!\[CDATA\[[\s\S]*?\]\]>)+)\s*<\/\1>/g;

/** The text a run of CDATA sections holds. */
const cdataText = (sections: string) =>
  sections.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_s, text: string) => text);

/**
 * The writer's indentation around a CDATA section would become part of an Atom id, a link or a
 * title: a CDATA section is the whole text of its element, so the whitespace between it and the
 * element's tags is removed (and only there: never inside the text).
 */
export function tightCdata(xml: string): string {
  return xml.replace(
    CDATA_ELEMENT,
    (_w, name: string, attrs: string, sections: string) => `<${name}${attrs}>${sections}</${name}>`,
  );
}

/** A text as RSS plain text: `&`, `<` and `>` as hexadecimal character references. */
export function rssPlain(text: string): string {
  return text.replace(/[&<>]/g, (ch) => `&#x${ch.charCodeAt(0).toString(16).toUpperCase()};`);
}

/**
 * RSS 2.0 leaves open whether an element other than a description holds text or HTML, and
 * readers differ (some strip what looks like a tag, some show it). The RSS Advisory Board's Best
 * Practices Profile (rssboard.org/rss-profile, "Character Data") asks plain text to write `&`,
 * `<` and `>` as `&#x26;`, `&#x3C;` and `&#x3E;`, the form the most readers show as the
 * characters themselves (the W3C feed validator warns about any other). So every element the
 * writer put in CDATA but a description (HTML, escaped by us, `escapeHtml`) is written so, the
 * whitespace around it removed as `tightCdata` does. An XML parser reads the same characters
 * either way; a `]]>` the writer split across two sections is one text again.
 */
export function rssPlainText(xml: string): string {
  return xml.replace(CDATA_ELEMENT, (_w, name: string, attrs: string, sections: string) =>
    name === "description"
      ? `<${name}${attrs}>${sections}</${name}>`
      : `<${name}${attrs}>${rssPlain(cdataText(sections))}</${name}>`,
  );
}

export function renderFeed(format: FeedFormat, c: FeedSpec): string {
  const page = `${c.origin}${c.pagePath}`;
  const self = `${c.origin}${c.selfPath(format)}`;
  const title = xmlText(c.title);
  const description = xmlText(c.description);
  const notices = c.notices ?? [];
  if (format === "atom") {
    return tightCdata(
      generateAtomFeed({
        id: c.id,
        title: { value: title, type: "text" },
        subtitle: { value: description, type: "text" },
        updated: c.updated,
        links: [
          { href: self, rel: "self", type: "application/atom+xml" },
          { href: page, rel: "alternate", type: "text/html" },
        ],
        authors: [{ name: "New on Record" }],
        entries: [
          ...notices.map((n) => ({
            id: n.id,
            title: { value: xmlText(n.title), type: "text" as const },
            updated: n.at,
            links: [{ href: n.link, rel: "alternate" }],
            summary: { value: xmlText(n.text), type: "text" as const },
          })),
          ...c.items.map((r) => ({
            id: itemId(r),
            title: { value: xmlText(isolated(r.title)), type: "text" as const },
            updated: new Date(changedOf(r)),
            published: new Date(r.firstSeenAt),
            links: [{ href: linkOf(c.origin, r), rel: "alternate" }],
            summary: { value: summaryOf(r), type: "text" as const },
            categories: [{ term: xmlText(categoryOf(r)) }],
          })),
        ],
      }),
    );
  }
  if (format === "rss") {
    return rssPlainText(
      generateRssFeed({
        title,
        link: page,
        description: escapeHtml(description),
        lastBuildDate: c.updated,
        atom: { links: [{ href: self, rel: "self", type: "application/rss+xml" }] },
        items: [
          ...notices.map((n) => ({
            title: xmlText(n.title),
            link: n.link,
            guid: { value: n.id, isPermaLink: false },
            pubDate: n.at,
            description: escapeHtml(xmlText(n.text)),
          })),
          ...c.items.map((r) => ({
            title: xmlText(isolated(r.title)),
            link: linkOf(c.origin, r),
            guid: { value: itemId(r), isPermaLink: false },
            pubDate: new Date(r.firstSeenAt),
            description: escapeHtml(summaryOf(r)),
            categories: [{ name: xmlText(categoryOf(r)) }],
          })),
        ],
      }),
    );
  }
  const json = generateJsonFeed({
    title,
    home_page_url: page,
    feed_url: self,
    description,
    items: [
      ...notices.map((n) => ({
        id: n.id,
        url: n.link,
        title: xmlText(n.title),
        summary: xmlText(n.text),
        content_text: xmlText(n.text),
        date_published: n.at,
      })),
      ...c.items.map((r) => ({
        id: itemId(r),
        url: linkOf(c.origin, r),
        title: xmlText(isolated(r.title)),
        summary: summaryOf(r),
        content_text: summaryOf(r),
        date_published: new Date(r.firstSeenAt),
        ...(changedOf(r) !== r.firstSeenAt ? { date_modified: new Date(changedOf(r)) } : {}),
        tags: [categoryOf(r)],
      })),
    ],
  });
  // JSON Feed 1.1 requires `items`; the writer leaves an empty array out, so it is put back.
  const feed = json as Record<string, unknown>;
  return JSON.stringify({ ...feed, items: feed.items ?? [] });
}
