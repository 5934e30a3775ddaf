/**
 * P26: a filter that names a record page a person marked not read (or one on a site whose owner
 * asked to be left alone), or a government some of whose record pages are: no night reads them,
 * so nothing from them can be new, and a list that said only "no new records" (a feed, only its
 * silence) would read as checked and quiet. Every list of it (`/new`, its feeds, `/api/new`)
 * says which are not read, since when and why, and links their pages, which keep their links and
 * their records (P26).
 */
import type { FC } from "hono/jsx";
import type { FeedNotice } from "./feeds.js";
import { isolated, timeEt } from "./format.js";

/** A record page not read: its id, its name as the pages give it, why and since when (ISO). */
export interface NotReadPage {
  id: string;
  name: string;
  reason: string;
  since: string;
}

export interface NotRead {
  /** The record pages of the selection that are not read, in the catalog's order. */
  pages: NotReadPage[];
  /** How many record pages the selection holds (1 for a record page; its government's current). */
  of: number;
}

export const notReadPage = (p: { id: string }): string => `/sources/${encodeURIComponent(p.id)}`;

const pageWords = (p: NotReadPage) => `${p.reason} (since ${timeEt(p.since)})`;

/** The words of a feed's description and its notice item: `origin` makes the links absolute. */
export function notReadText(n: NotRead, origin: string): string {
  if (n.of === 1 && n.pages.length === 1) {
    const p = n.pages[0] as NotReadPage;
    return `The record page ${isolated(p.name)} is not read: ${pageWords(p)}. No night reads it now, so nothing from it can be new here until it is read again; its page, ${origin}${notReadPage(p)}, keeps its link and says why.`;
  }
  const all = n.pages.length === n.of;
  const count = all
    ? n.of === 2
      ? "Both record pages here are"
      : `All ${n.of} record pages here are`
    : `${n.pages.length} of the ${n.of} record pages here ${n.pages.length === 1 ? "is" : "are"}`;
  const each = n.pages
    .map((p) => `${isolated(p.name)}: ${pageWords(p)}, ${origin}${notReadPage(p)}`)
    .join("; ");
  return `${count} not read, so nothing from ${n.pages.length === 1 ? "it" : "them"} can be new here until read again (each page keeps its link and says why). ${each}.`;
}

/** The notice on /new: the same words, each page linked. */
export const NotReadNotice: FC<{ n: NotRead }> = ({ n }) => {
  if (n.of === 1 && n.pages.length === 1) {
    const p = n.pages[0] as NotReadPage;
    return (
      <p class="notice not-read" id="not-read-scope">
        The record page <bdi>{p.name}</bdi> is not read: <span class="reason">{p.reason}</span>{" "}
        (since <time datetime={p.since}>{timeEt(p.since)}</time>). No night reads it now, so nothing
        from it can be new here until it is read again; <a href={notReadPage(p)}>its page</a> keeps
        its link and says why.
      </p>
    );
  }
  const all = n.pages.length === n.of;
  return (
    <div class="notice not-read" id="not-read-scope">
      <p>
        {all
          ? n.of === 2
            ? "Both record pages here are"
            : `All ${n.of} record pages here are`
          : `${n.pages.length} of the ${n.of} record pages here ${n.pages.length === 1 ? "is" : "are"}`}{" "}
        not read, so nothing from {n.pages.length === 1 ? "it" : "them"} can be new here until read
        again (each page keeps its link and says why):
      </p>
      <ul>
        {n.pages.map((p) => (
          <li>
            <a href={notReadPage(p)}>
              <bdi>{p.name}</bdi>
            </a>
            : <span class="reason">{p.reason}</span> (since{" "}
            <time datetime={p.since}>{timeEt(p.since)}</time>)
          </li>
        ))}
      </ul>
    </div>
  );
};

/**
 * The items a feed of it holds before any record, one a page not read: a reader shows them,
 * where a description goes unread. Each item's id names its page and when it was marked
 * (`urn:new-on-record:not-read:source:ID:AT`), never a record's: the same on every read while
 * that page stays not read, whatever the other pages do (a reader that keeps every item it saw
 * never holds two of one page), and a new item once the page is marked again.
 */
export function notReadFeedItems(n: NotRead, origin: string): FeedNotice[] {
  return n.pages.map((p) => ({
    id: `urn:new-on-record:not-read:source:${encodeURIComponent(p.id)}:${encodeURIComponent(p.since)}`,
    title: `Not read: ${isolated(p.name)}`,
    text: notReadText({ pages: [p], of: 1 }, origin),
    link: `${origin}${notReadPage(p)}`,
    at: new Date(p.since),
  }));
}

/** `/api/new`'s `notRead`: each record page of the selection not read; [] when none is. */
export function notReadJson(n: NotRead | undefined) {
  return (n?.pages ?? []).map((p) => ({ source: p.id, reason: p.reason, since: p.since }));
}
