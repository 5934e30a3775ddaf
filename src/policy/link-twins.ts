/**
 * A record known by its link (record-id.ts) whose link a site starts to write another way, the
 * same document: `http:` become `https:` (a site moved to TLS), `www.` added or dropped. Its id
 * changes with the link, and without this it would be listed new on record again, with every
 * other record of the list, the night the site moved. Pure: the other spellings of one link.
 */

import { addDays } from "./night-date.js";

/** The same link under the other scheme and with `www.` toggled (at most three), none itself. */
export function linkTwins(id: string): string[] {
  let u: URL;
  try {
    u = new URL(id);
  } catch {
    return [];
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.href !== id) return [];
  const host = u.hostname;
  // An address (IPv4, or IPv6 in brackets) has no `www.` to add or drop.
  const literal = host.startsWith("[") || /^[\d.]+$/.test(host);
  const hosts = literal ? [host] : [host, host.startsWith("www.") ? host.slice(4) : `www.${host}`];
  const out: string[] = [];
  for (const scheme of ["https:", "http:"])
    for (const h of hosts) {
      const v = new URL(u.href);
      v.protocol = scheme;
      v.hostname = h;
      if (v.href !== id && !out.includes(v.href)) out.push(v.href);
    }
  return out;
}

/** A split id's suffix (record-id.ts `splitSharedLinks`): `#` and 16 hex digits. */
const SPLIT = /#[0-9a-f]{16}$/;
export const SPLIT_SUFFIX_LENGTH = 17;

/**
 * The ids a record known by its link may have been stored under: its link (without a split
 * suffix) and that link's twins. Undefined for an id that is no link (a platform's, `h:`, `l:`).
 * A stored id is of the family when it is one of these, or one of them with a split suffix.
 */
export function linkFamily(id: string): string[] | undefined {
  const base = SPLIT.test(id) ? id.slice(0, -SPLIT_SUFFIX_LENGTH) : id;
  const twins = linkTwins(base);
  if (twins.length === 0) return undefined;
  return [base, ...twins];
}

export function ofFamily(storedId: string, family: readonly string[]): boolean {
  if (family.includes(storedId)) return true;
  return SPLIT.test(storedId) && family.includes(storedId.slice(0, -SPLIT_SUFFIX_LENGTH));
}

export interface Shown {
  title: string;
  date: string | null;
}

/**
 * Which stored record of a link's family (none of them listed tonight) a record first seen
 * tonight is. For a plain link, its twin stored plain: the same document (a site moved to https),
 * whatever its title says now. Else the one that shows the same title and date: a row whose link
 * came to be shared by others, or stopped being, keeps its record under its new id. Else none: a
 * shared link's row retitled cannot be told from a new row that took the place of one gone (a
 * list that drops its oldest meeting as it adds one), and a new record is never hidden.
 */
export function pickTwin<T extends Shown & { id: string }>(
  id: string,
  row: Shown,
  candidates: readonly T[],
): T | undefined {
  if (!SPLIT.test(id)) {
    const plain = candidates.find((c) => !SPLIT.test(c.id));
    if (plain) return plain;
  }
  return candidates.find((c) => c.title === row.title && c.date === row.date);
}

/**
 * Records that moved with their site's files (a new path, a new document platform, a query
 * written in another order): their links, and so their ids, all changed at once. Pairs each
 * record first seen tonight (`fresh`) with the record the list showed at its last read and no
 * longer shows (`gone`) that shows the same title and the same date, when nothing else can be
 * meant: exactly one row of tonight's list (`tonight`) and exactly one gone record show that title
 * and date; a record without a date or a title is never paired (a list may repeat an undated
 * "Agenda"). And only a move, where nearly every link changed: at least MOVED_AT_LEAST pairs,
 * pairs for at least half the links of the last read (`lastRead`, how many it listed), and at
 * most a tenth of them still listed tonight (`stillListed`). Links that change one by one are no
 * move: a list that titles its rows by meeting shows a meeting's minutes, posted as its agenda
 * leaves the page, under the agenda's title and date, and a new record is never hidden. Returns
 * new id → gone record (none when it is no move). Pure.
 */
export function pairMoved<T extends Shown & { id: string }>(
  fresh: readonly (Shown & { id: string })[],
  tonight: readonly Shown[],
  gone: readonly T[],
  lastRead: number,
  stillListed: number,
): Map<string, T> {
  const key = (s: Shown) =>
    s.date === null || s.date === "" || s.title.trim() === ""
      ? undefined
      : `${kept(s.title)}\0${kept(s.date)}`;
  const shownTonight = new Map<string, number>();
  for (const x of tonight) {
    const k = key(x);
    if (k !== undefined) shownTonight.set(k, (shownTonight.get(k) ?? 0) + 1);
  }
  // Per title and date, the one gone record that shows it (null: more than one do).
  const goneBy = new Map<string, T | null>();
  for (const g of gone) {
    const k = key(g);
    if (k !== undefined) goneBy.set(k, goneBy.has(k) ? null : g);
  }
  const out = new Map<string, T>();
  for (const f of fresh) {
    const k = key(f);
    if (k === undefined || shownTonight.get(k) !== 1) continue;
    const old = goneBy.get(k);
    if (old) out.set(f.id, old);
  }
  const move =
    out.size >= MOVED_AT_LEAST && out.size * 2 >= lastRead && stillListed * 10 <= lastRead;
  return move ? out : new Map();
}

/**
 * Whether a night may find a move (`pairMoved`): its list was last read (`lastRead`, a night
 * key) at most MOVED_WITHIN_NIGHTS before, so what it no longer shows left it lately. After a
 * longer gap (a site down for weeks) its rows may have been replaced one by one meanwhile.
 */
export function movedMayBe(night: string, lastRead: string | undefined): boolean {
  return (
    lastRead !== undefined && lastRead < night && lastRead >= addDays(night, -MOVED_WITHIN_NIGHTS)
  );
}

export const MOVED_WITHIN_NIGHTS = 7;

/**
 * A text as every store gives it back, so tonight's rows and the stored ones compare alike: a
 * NUL becomes U+FFFD (store/no-nul.ts), a lone surrogate U+FFFD on PostgreSQL and three of them
 * on SQLite (its UTF-8 keeps the surrogate's three bytes): each run of these is one U+FFFD.
 */
function kept(s: string): string {
  return s.replace(/[\p{Cs}\ufffd\0]+/gu, "\ufffd");
}

/** The fewest records that moved together that make a move (`pairMoved`). */
export const MOVED_AT_LEAST = 2;
