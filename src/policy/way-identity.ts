/**
 * One record across a source's ways in (P4, P6). A source may be read through an api one night
 * and its page the next (the api failed: P4's fallback), and each way knows a record by an id of
 * its own (the api's EventId, the page's link): without this rule the source would keep a copy
 * of each record per way, and a record first read through one way would be listed new again
 * when the other lists it. Pure: which record first seen tonight is which stored record.
 *
 * The rule (docs/catalog.md "One record across ways in"): on a night whose list is read through
 * another address than the source's last read list (a way switched), a record first seen tonight
 * is the stored record, not listed tonight, that has the same link, written the same way but for
 * `http:`/`https:`, `www.` and letter case of the host; where either of them has no link, the one
 * that falls on the same day with the same title (letters folded, case, spacing and punctuation
 * aside). Only one to one: a link or a day and title that two rows of tonight's list show, or two
 * stored records, pairs nothing (two hearings on one day, rows that share a link), and a new
 * record is never hidden behind one of them.
 */
import { foldLetters } from "./fold.js";
import { recordDay } from "./record-date.js";

/** A record as tonight's list shows it or as the store keeps it. */
export interface WayRow {
  id: string;
  title: string;
  date: string | null;
  url: string | null;
}

/**
 * A link as every way writes it: the scheme and `www.` aside (a site's api writes `http:`, its
 * page `https://www.`), the host in lower case, no fragment. Undefined when it is no http(s) URL.
 */
export function wayLink(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
  u.hash = "";
  const host = u.host.startsWith("www.") ? u.host.slice(4) : u.host;
  return `${host}${u.pathname}${u.search}`;
}

/**
 * The day a record falls on and its title as words: letters folded (`é` is `e`), case, spacing
 * and punctuation aside (`PARKS COMMISSION` is `Parks  Commission`). Undefined without a day or a
 * word: such a record is never matched by it.
 */
export function wayShown(title: string, date: string | null | undefined): string | undefined {
  const day = recordDay(date);
  if (day === undefined) return undefined;
  const words = foldLetters(title)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return words === "" ? undefined : `${day}\u0000${words}`;
}

/**
 * Whether a list read by another reader at the same address (a recipe changed, a deploy of the
 * readers' code) reads it under other ids: most of tonight's records (`shown`) first seen
 * tonight (`firstSeen`). Only then are its records paired with stored ones across ids; a reader
 * that reads the same ids finds a record new as any night does.
 */
export function idsReadAnew(firstSeen: number, shown: number): boolean {
  return firstSeen * 2 > shown;
}

/** A record as its look is judged (showsAnyOf, shownAsHeld): its title, day and link, or null. */
export function lookOf(x: { title: string; date?: string; url?: string }): Omit<WayRow, "id"> {
  return { title: x.title, date: x.date ?? null, url: x.url ?? null };
}

/**
 * P7: whether any row `shown` on a list's page is, by its look, a record `stored` the source
 * holds: the same link however written (`wayLink`) or the same day under the same title
 * (`wayShown`), that one only as pairs are (one to one: a day and title that two rows shown, or
 * two stored records, share says nothing: a day's legal notices of one title). A first page whose
 * ids the source does not hold but whose records it does by their look has not overflowed: its
 * files moved, its links are written anew, or another way in names them otherwise
 * (docs/catalog.md): its next pages are not read for new records.
 */
export function showsAnyOf(
  shown: readonly Omit<WayRow, "id">[],
  stored: readonly Omit<WayRow, "id">[],
): boolean {
  return shownAsHeld(shown, stored).some((x) => x);
}

/**
 * P7: for each row `shown`, whether it is by its look a record `stored` (as showsAnyOf); `alone`:
 * each row judged as if shown alone (a day and title two rows share still counts).
 */
export function shownAsHeld(
  shown: readonly Omit<WayRow, "id">[],
  stored: readonly Omit<WayRow, "id">[],
  alone = false,
): boolean[] {
  const links = new Set<string>();
  for (const x of stored) {
    const l = wayLink(x.url);
    if (l !== undefined) links.add(l);
  }
  const looks = countBy(stored, (x) => wayShown(x.title, x.date));
  const shownLooks = countBy(shown, (x) => wayShown(x.title, x.date));
  return shown.map((x) => {
    const l = wayLink(x.url);
    const k = wayShown(x.title, x.date);
    return (
      (l !== undefined && links.has(l)) ||
      (k !== undefined && looks.get(k) === 1 && (alone || shownLooks.get(k) === 1))
    );
  });
}

/** Counts of each key among `rows` (undefined keys left out). */
function countBy<T>(rows: readonly T[], key: (r: T) => string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const k = key(r);
    if (k !== undefined) out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/**
 * Pairs each record first seen tonight (`fresh`) with the stored record (`stored`: the source's
 * records that tonight's list does not show) it is, read through another way: by its link, else
 * (either of them without a link) by its day and title; each one to one only (`tonight`: every
 * row of tonight's list, to tell whether a link or a day and title is one row's). Returns the new
 * id → the stored record.
 */
export function pairAcrossWays<T extends WayRow>(
  fresh: readonly WayRow[],
  tonight: readonly WayRow[],
  stored: readonly T[],
  /**
   * The same list at the same address, read by another reader (a recipe mended in the catalog):
   * a record left unpaired is then also the one stored under its title alone, where one of the
   * two has no link and each title is one row's tonight and one record's stored (a date
   * selector mended on a list without links reads every record on another day: P6, not new
   * again). A set: those stored records alone are so paired, the ids the list showed at its
   * last read in full (a record held under a title that left the list before is no row of it:
   * a notice posted again under last year's title is new).
   */
  sameList: boolean | ReadonlySet<string> = false,
): Map<string, T> {
  const out = new Map<string, T>();
  const taken = new Set<string>();
  const linkTonight = countBy(tonight, (r) => wayLink(r.url));
  const linkStored = countBy(stored, (r) => wayLink(r.url));
  const storedByLink = new Map<string, T>();
  for (const s of stored) {
    const k = wayLink(s.url);
    if (k !== undefined) storedByLink.set(k, s);
  }
  for (const f of fresh) {
    const k = wayLink(f.url);
    if (k === undefined || linkTonight.get(k) !== 1 || linkStored.get(k) !== 1) continue;
    const s = storedByLink.get(k);
    if (s === undefined || taken.has(s.id)) continue;
    out.set(f.id, s);
    taken.add(s.id);
  }
  // By day and title, where one of the two has no link (a link each that differ: two records).
  const shownTonight = countBy(tonight, (r) => wayShown(r.title, r.date));
  const left = stored.filter((s) => !taken.has(s.id));
  const shownStored = countBy(left, (r) => wayShown(r.title, r.date));
  const storedByShown = new Map<string, T>();
  for (const s of left) {
    const k = wayShown(s.title, s.date);
    if (k !== undefined) storedByShown.set(k, s);
  }
  for (const f of fresh) {
    if (out.has(f.id)) continue;
    const k = wayShown(f.title, f.date);
    if (k === undefined || shownTonight.get(k) !== 1 || shownStored.get(k) !== 1) continue;
    const s = storedByShown.get(k);
    if (s === undefined || taken.has(s.id)) continue;
    if (wayLink(f.url) !== undefined && wayLink(s.url) !== undefined) continue;
    out.set(f.id, s);
    taken.add(s.id);
  }
  if (sameList === false) return out;
  // By title alone, on the same list read anew (its day read otherwise by the mended recipe).
  const titleTonight = countBy(tonight, (r) => wayTitle(r.title));
  const shown = sameList === true ? undefined : sameList;
  const rest = stored.filter((s) => !taken.has(s.id) && (shown === undefined || shown.has(s.id)));
  const titleStored = countBy(rest, (r) => wayTitle(r.title));
  const storedByTitle = new Map<string, T>();
  for (const s of rest) {
    const k = wayTitle(s.title);
    if (k !== undefined) storedByTitle.set(k, s);
  }
  for (const f of fresh) {
    if (out.has(f.id)) continue;
    const k = wayTitle(f.title);
    if (k === undefined || titleTonight.get(k) !== 1 || titleStored.get(k) !== 1) continue;
    const s = storedByTitle.get(k);
    if (s === undefined || taken.has(s.id)) continue;
    if (wayLink(f.url) !== undefined && wayLink(s.url) !== undefined) continue;
    out.set(f.id, s);
    taken.add(s.id);
  }
  return out;
}

/** A title as words (wayShown's, without the day), or undefined when it has none. */
function wayTitle(title: string): string | undefined {
  const words = foldLetters(title)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return words === "" ? undefined : words;
}

/**
 * Whether a list read for the first time through this way, the source's list having been read
 * through another (`switched`), says new what it shows that the source did not hold: when at
 * least half of its first page (`listed`) is records the source holds (`held`: by their ids, or
 * paired across ways). The two ways then show one list, and what only tonight's shows appeared
 * since the other was read. Else the ways show different lists (a page with years of minutes
 * beside an api of coming meetings) and tonight's is read as a first read is: already listed.
 */
export function switchedListSaysNew(held: number, listed: number): boolean {
  return held * 2 > listed;
}

/** A record of tonight's first page, and whether the source held it (by its id, or paired). */
export interface FirstPageRow {
  id: string;
  date: string | null | undefined;
  held: boolean;
}

/**
 * The records of a switched list's first read (`switchedListSaysNew`) that are new on record:
 * those the source did not hold, when most of the first page was held, less those dated before
 * every record held that has a day. A way whose list reaches further back than the other's (an
 * api of a year of meetings beside a page of the last ten) shows, past the oldest they both
 * show, rows that were there all along, beyond the other way's window: already listed, as a
 * first read's are. A row without a day is judged by the page alone, as before.
 */
export function newOnSwitchedList(firstPage: readonly FirstPageRow[]): string[] {
  const unheld = firstPage.filter((x) => !x.held);
  if (
    unheld.length === 0 ||
    !switchedListSaysNew(firstPage.length - unheld.length, firstPage.length)
  )
    return [];
  let oldest: string | undefined;
  for (const x of firstPage) {
    if (!x.held) continue;
    const day = recordDay(x.date);
    if (day !== undefined && (oldest === undefined || day < oldest)) oldest = day;
  }
  return unheld
    .filter((x) => {
      const day = recordDay(x.date);
      return oldest === undefined || day === undefined || day >= oldest;
    })
    .map((x) => x.id);
}
