/**
 * P26: a filter that names a record page a person marked not read (or one on a site whose owner
 * asked to be left alone): no night reads it, so nothing from it can be new, and a list of it
 * that said only "no new records" (a feed, only its silence) would read as checked and quiet.
 * Every list of it (`/new`, its feeds, `/api/new`) says it is not read, since when and why, and
 * links its page, which keeps its link and its records (P26).
 */
import type { FC } from "hono/jsx";
import type { FeedNotice } from "./feeds.js";
import { isolated, timeEt } from "./format.js";

export interface NotRead {
  /** The record page's id and its name as the pages give it (retired.tsx `sourceName`). */
  id: string;
  name: string;
  reason: string;
  /** When it was marked not read (or its site's owner asked), ISO. */
  since: string;
}

export const notReadPage = (n: NotRead): string => `/sources/${encodeURIComponent(n.id)}`;

/** The words of a feed's description and its notice item: `link` is the page, absolute. */
export function notReadText(n: NotRead, link: string): string {
  return `The record page ${isolated(n.name)} is not read: ${n.reason} (since ${timeEt(n.since)}). No night reads it now, so nothing from it can be new here until it is read again; its page, ${link}, keeps its link and says why.`;
}

/** The notice on /new: the same words, the page linked. */
export const NotReadNotice: FC<{ n: NotRead }> = ({ n }) => (
  <p class="notice not-read" id="not-read-scope">
    The record page <bdi>{n.name}</bdi> is not read: <span class="reason">{n.reason}</span> (since{" "}
    <time datetime={n.since}>{timeEt(n.since)}</time>). No night reads it now, so nothing from it
    can be new here until it is read again; <a href={notReadPage(n)}>its page</a> keeps its link and
    says why.
  </p>
);

/**
 * The item a feed of it holds before any record: a reader shows it, where a description goes
 * unread. Its id names the page and when it was marked (`urn:new-on-record:not-read:source:ID:AT`),
 * never a record's: the same on every read, and a page marked not read again later is a new item.
 */
export function notReadFeedItem(n: NotRead, origin: string): FeedNotice {
  const link = `${origin}${notReadPage(n)}`;
  return {
    id: `urn:new-on-record:not-read:source:${encodeURIComponent(n.id)}:${encodeURIComponent(n.since)}`,
    title: `Not read: ${isolated(n.name)}`,
    text: notReadText(n, link),
    link,
    at: new Date(n.since),
  };
}

/** `/api/new`'s `notRead`: null when the filter names no record page, or one that is read. */
export function notReadJson(n: NotRead | undefined) {
  return n ? { source: n.id, reason: n.reason, since: n.since } : null;
}
