/**
 * Gathers what one page (or its JSON twin) shows, so the HTML and the API never disagree.
 * Each loader returns a tagged result: an unknown id is `missing`, not an exception.
 */
import { addDays, nightOf } from "../../policy/night-date.js";
import type { Db } from "../../store/db.js";
import {
  type GovernmentSummary,
  getGovernment,
  getSource,
  type LeadSummary,
  leadsOf,
  newestRecords,
  sourcesOf,
} from "../../store/read/directory.js";
import { firstNight, latestNight, nightsIn } from "../../store/read/new-records.js";
import { listingChanges } from "../../store/read/source-state.js";
import { listingOnNight } from "./listing.js";
import type { SourceLine } from "./pages/governments.js";
import type { SourcePageData, StripNight } from "./pages/source.js";
import { lastOutcomes, outcomesSince, readStatuses } from "./state.js";

/** The strip on a source's page: the last 30 nights, newest first. */
export const NIGHTS_SHOWN = 30;
/** Newest records on a source's page. */
export const RECORDS_SHOWN = 50;

export type Loaded<T> = { found: true; value: T } | { found: false };

export async function loadGovernment(
  db: Db,
  id: string,
  now: number,
): Promise<Loaded<{ government: GovernmentSummary; sources: SourceLine[]; leads: LeadSummary[] }>> {
  const government = await getGovernment(db, id);
  if (!government) return { found: false };
  // A government that left the catalog keeps the record pages it had, each with its records.
  const list = await sourcesOf(db, id, { retired: government.retiredAt !== null });
  const ids = list.map((s) => s.id);
  const [statuses, outcomes, leads] = await Promise.all([
    readStatuses(db, list, now),
    lastOutcomes(db, ids),
    leadsOf(db, id),
  ]);
  const sources = list.map((source) => {
    const line: SourceLine = { source, status: statuses.get(source.id) ?? { reading: true } };
    const last = outcomes.get(source.id);
    if (last) line.last = last;
    return line;
  });
  return { found: true, value: { government, sources, leads } };
}

/**
 * The last 30 calendar nights up to the latest night that ran (or yesterday's, when the latest
 * is older): a date with no night at all shows as "checker offline", not as a gap, unless it
 * came before the directory's first night, or before this page was listed (or while it was
 * retired): then nothing was meant to check it, and no outage is claimed.
 */
export async function loadSource(db: Db, id: string, now: number): Promise<Loaded<SourcePageData>> {
  const source = await getSource(db, id);
  if (!source) return { found: false };
  const yesterday = addDays(nightOf(now), -1);
  const [latest, first] = await Promise.all([latestNight(db), firstNight(db)]);
  const to = latest && latest.night > yesterday ? latest.night : yesterday;
  const from = addDays(to, -(NIGHTS_SHOWN - 1));
  const [government, statuses, ran, records, outcomes, lasts, changes] = await Promise.all([
    getGovernment(db, source.governmentId),
    readStatuses(db, [source], now),
    nightsIn(db, { from, to }),
    // One more than shown: whether there are more than the page lists.
    newestRecords(db, id, RECORDS_SHOWN + 1),
    outcomesSince(db, id, from),
    lastOutcomes(db, [id]),
    listingChanges(db, id),
  ]);
  const started = new Map(ran.map((n) => [n.night, n.startedAt]));
  // A night still under way (unfinished, inside its deadline) has not reached this page yet:
  // not "a night ran without it".
  const underWay = new Set(
    ran.filter((n) => !n.finishedAt && now <= Date.parse(n.deadlineAt)).map((n) => n.night),
  );
  const nights: StripNight[] = [];
  for (let d = to, i = 0; i < NIGHTS_SHOWN; d = addDays(d, -1), i++) {
    const outcome = outcomes.get(d);
    if (outcome) {
      nights.push({ night: d, state: "checked", outcome });
      continue;
    }
    // Before the directory's first night nothing ran because nothing was meant to: not an outage.
    if (first === undefined || d < first) {
      nights.push({ night: d, state: "before" });
      continue;
    }
    // Nor before this page was listed, or while it was retired: the night had nothing to ask it.
    const listing = listingOnNight(changes, d, started.get(d));
    if (listing !== "listed") nights.push({ night: d, state: listing });
    // (A page marked not read is asked only on its recheck nights, or the night after one not
    // reached: not said to be coming.)
    else if (underWay.has(d) && statuses.get(id)?.reading !== false)
      nights.push({ night: d, state: "running" });
    else if (started.has(d)) nights.push({ night: d, state: "not-checked" });
    else nights.push({ night: d, state: "offline" });
  }
  const d: SourcePageData = {
    source,
    status: statuses.get(id) ?? { reading: true },
    nights,
    records: records.slice(0, RECORDS_SHOWN),
    recordsShown: RECORDS_SHOWN,
    today: nightOf(now),
  };
  if (records.length > RECORDS_SHOWN) d.moreRecords = true;
  if (government) d.government = government;
  const last = lasts.get(id);
  if (last) d.last = last;
  return { found: true, value: d };
}
