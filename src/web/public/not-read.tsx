/**
 * P26: a selection of record pages (a filter: a record page, a government, a county, a kind of
 * government or of records, the whole state) some of which a person marked not read, or whose
 * site's owner asked to be left alone: no night reads them, so nothing from them can be new, and
 * a list that said only "no new records" (a feed, only its silence) would read as checked and
 * quiet. Every public list of their records (`/new`, a search, the calendar, a county's page, the
 * list of governments, their feeds and the API) says which are not read, since when and why, and
 * links their pages, which keep their links and their records (P26). The pages a notice names
 * are those the list's filter selects, as it selects their records (store/read/not-read.ts);
 * the words of a search select records, never pages, so they narrow no notice.
 */
import { createHash } from "node:crypto";
import type { FC } from "hono/jsx";
import type { FeedNotice } from "./feeds.js";
import { isolated, timeEt } from "./format.js";

/** A record page not read: its id, its name as the pages give it, why and since when (ISO). */
export interface NotReadPage {
  id: string;
  name: string;
  reason: string;
  since: string;
  /**
   * A person's mark's place in the order of decisions (its `at`, one a page: marks_pk), which
   * names its feed item: `since` is the time the mark's host gave it (migration 037), which two
   * marks of one page may share (two processes at once, a clock stepped back), and the page
   * marked again must be a new item. Absent for a site owner's request: its `since`.
   */
  marked?: string;
}

/** What names a page's notice, as an item of a feed (and in the KEY of the rest's). */
const itemTime = (p: NotReadPage) => p.marked ?? p.since;

export interface NotRead {
  /** The record pages of the selection that are not read, in the catalog's order. */
  pages: NotReadPage[];
  /** How many record pages the selection holds (1 for a record page; its government's current). */
  of: number;
}

/**
 * What a page not read keeps from a list: "nothing from it can be new here", said of one page
 * (`one`) or of some (`some`, given "it" or "them").
 */
export interface NotReadHere {
  one: string;
  some: (them: "it" | "them") => string;
}

/** `/new` and its feeds (and the front page's newest): nothing from it can be new. */
export const NEW_HERE: NotReadHere = {
  one: "nothing from it can be new here until it is read again",
  some: (them) => `nothing from ${them} can be new here until read again`,
};

/** A search: what the page posts meanwhile is never read, so never found. */
export const SEARCH_HERE: NotReadHere = {
  one: "nothing it posts meanwhile can be found here until it is read again",
  some: (them) =>
    `nothing ${them === "it" ? "it posts" : "they post"} meanwhile can be found here until read again`,
};

/** The calendar: no meeting the page posts meanwhile is in it. */
export const CALENDAR_HERE: NotReadHere = {
  one: "no meeting it posts meanwhile can be in this calendar until it is read again",
  some: (them) =>
    `no meeting ${them === "it" ? "it posts" : "they post"} meanwhile can be in this calendar until read again`,
};

/** A county's page or the list of governments: pages listed, their records followed elsewhere. */
export const LISTED_HERE: NotReadHere = {
  one: "nothing from it can be new on record until it is read again",
  some: (them) => `nothing from ${them} can be new on record until read again`,
};

/** "Both record pages here are", "1 of the 4 record pages here is". */
function countWords(n: NotRead): string {
  return n.pages.length === n.of
    ? n.of === 2
      ? "Both record pages here are"
      : `All ${n.of} record pages here are`
    : `${n.pages.length} of the ${n.of} record pages here ${n.pages.length === 1 ? "is" : "are"}`;
}

/** A notice naming more pages than this shows them folded (`<details>`), the count first. */
const FOLD_OVER = 10;

export const notReadPage = (p: { id: string }): string => `/sources/${encodeURIComponent(p.id)}`;

const pageWords = (p: NotReadPage) => `${p.reason} (since ${timeEt(p.since)})`;

/**
 * The words of a feed's description and its notice item: `origin` makes the links absolute.
 * Past FOLD_OVER pages, the first FOLD_OVER are named and `list` (a page of the site whose notice
 * names every one) says where the rest are: one owner's request on a platform's site can make
 * hundreds, each an item of its own in a feed, never all said again in its description.
 */
export function notReadText(
  n: NotRead,
  origin: string,
  here: NotReadHere = NEW_HERE,
  list?: string,
): string {
  if (n.of === 1 && n.pages.length === 1) {
    const p = n.pages[0] as NotReadPage;
    return `The record page ${isolated(p.name)} is not read: ${pageWords(p)}. No night reads it now, so ${here.one}; its page, ${origin}${notReadPage(p)}, keeps its link and says why.`;
  }
  const cut = list !== undefined && n.pages.length > FOLD_OVER;
  const each = (cut ? n.pages.slice(0, FOLD_OVER) : n.pages)
    .map((p) => `${isolated(p.name)}: ${pageWords(p)}, ${origin}${notReadPage(p)}`)
    .join("; ");
  const rest = cut
    ? `; and ${n.pages.length - FOLD_OVER} more, ${n.pages.length - FOLD_OVER === 1 ? "named" : "each named"} with why at ${origin}${list}`
    : "";
  return `${countWords(n)} not read, so ${here.some(n.pages.length === 1 ? "it" : "them")} (each page keeps its link and says why). ${each}${rest}.`;
}

/** The notice on a page (`/new`, a search, a county's page): the same words, each page linked. */
export const NotReadNotice: FC<{
  n: NotRead;
  here?: NotReadHere;
  /** Every list of pages folded (the front page: its newest records come first). */
  fold?: boolean;
}> = ({ n, here = NEW_HERE, fold = false }) => {
  if (n.of === 1 && n.pages.length === 1) {
    const p = n.pages[0] as NotReadPage;
    return (
      <p class="notice not-read" id="not-read-scope">
        The record page <bdi>{p.name}</bdi> is not read: <span class="reason">{p.reason}</span>{" "}
        (since <time datetime={p.since}>{timeEt(p.since)}</time>). No night reads it now, so{" "}
        {here.one}; <a href={notReadPage(p)}>its page</a> keeps its link and says why.
      </p>
    );
  }
  const list = (
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
  );
  return (
    <div class="notice not-read" id="not-read-scope">
      <p>
        {countWords(n)} not read, so {here.some(n.pages.length === 1 ? "it" : "them")} (each page
        keeps its link and says why):
      </p>
      {fold || n.pages.length > FOLD_OVER ? (
        <details>
          <summary>
            {n.pages.length === 1
              ? "The record page not read, and why"
              : `The ${n.pages.length} record pages not read, and why`}
          </summary>
          {list}
        </details>
      ) : (
        list
      )}
    </div>
  );
};

/**
 * The items a feed of it holds before any record, one a page not read: a reader shows them,
 * where a description goes unread. Each item's id names its page and when it was marked
 * (`urn:new-on-record:not-read:source:ID:AT`), never a record's: the same on every read while
 * that page stays not read and among the first FOLD_OVER named, and a new item once the page is
 * marked again. Past FOLD_OVER pages, as a feed lists only its newest records, the rest are one
 * item (`urn:new-on-record:not-read:more:KEY`, KEY a digest of those pages and their times: the
 * same while they stay as they are) linking `list`, the page whose notice names every one: one
 * owner's request on a platform's site would otherwise put hundreds of items in every statewide
 * feed.
 */
export function notReadFeedItems(
  n: NotRead,
  origin: string,
  here: NotReadHere = NEW_HERE,
  list?: string,
): FeedNotice[] {
  const cut = list !== undefined && n.pages.length > FOLD_OVER;
  const named = cut ? n.pages.slice(0, FOLD_OVER) : n.pages;
  const items: FeedNotice[] = named.map((p) => ({
    id: `urn:new-on-record:not-read:source:${encodeURIComponent(p.id)}:${encodeURIComponent(itemTime(p))}`,
    title: `Not read: ${isolated(p.name)}`,
    text: notReadText({ pages: [p], of: 1 }, origin, here),
    link: `${origin}${notReadPage(p)}`,
    at: new Date(p.since),
  }));
  if (!cut) return items;
  const rest = n.pages.slice(FOLD_OVER);
  const key = createHash("sha256")
    .update(
      rest
        .map((p) => `${p.id}\n${itemTime(p)}`)
        .sort()
        .join("\n"),
    )
    .digest("hex")
    .slice(0, 32);
  const latest = Math.max(...rest.map((p) => Date.parse(p.since)));
  // 11 pages leave one past the first 10: said as one page.
  const one = rest.length === 1;
  items.push({
    id: `urn:new-on-record:not-read:more:${key}`,
    title: `Not read: ${rest.length} more record ${one ? "page" : "pages"}`,
    text: `${rest.length} more record ${one ? "page here is" : "pages here are"} not read, so ${here.some(one ? "it" : "them")} (${one ? "its page keeps its link and says why). It is" : "each page keeps its link and says why). Each is"} named with why at ${origin}${list}.`,
    link: `${origin}${list}`,
    at: new Date(latest),
  });
  return items;
}

/** The API's `notRead` (`/api/new`, `/api/search`, `/api/counties/:county`): [] when none is. */
export function notReadJson(n: NotRead | undefined) {
  return (n?.pages ?? []).map((p) => ({ source: p.id, reason: p.reason, since: p.since }));
}
