/**
 * Gathers what one page (or its JSON twin) shows, so the HTML and the API never disagree.
 * Each loader returns a tagged result: an unknown id is `missing`, not an exception.
 */
import type { Db } from "../../store/db.js";
import {
  type GovernmentSummary,
  getGovernment,
  getSource,
  newestRecords,
  sourcesOf,
} from "./data/directory.js";
import { lastOutcomes, outcomesOn, readStatuses, recentNights } from "./data/source-state.js";
import type { SourceLine } from "./pages/governments.js";
import type { SourcePageData } from "./pages/source.js";

/** "The last nights' outcomes at a glance": two weeks. */
export const NIGHTS_SHOWN = 14;
/** Newest records on a source's page. */
export const RECORDS_SHOWN = 50;

export type Loaded<T> = { found: true; value: T } | { found: false };

export async function loadGovernment(
  db: Db,
  id: string,
): Promise<Loaded<{ government: GovernmentSummary; sources: SourceLine[] }>> {
  const government = await getGovernment(db, id);
  if (!government) return { found: false };
  const list = await sourcesOf(db, id);
  const ids = list.map((s) => s.id);
  const [statuses, outcomes] = await Promise.all([readStatuses(db, ids), lastOutcomes(db, ids)]);
  const sources = list.map((source) => {
    const line: SourceLine = { source, status: statuses.get(source.id) ?? { reading: true } };
    const last = outcomes.get(source.id);
    if (last) line.last = last;
    return line;
  });
  return { found: true, value: { government, sources } };
}

export async function loadSource(db: Db, id: string): Promise<Loaded<SourcePageData>> {
  const source = await getSource(db, id);
  if (!source) return { found: false };
  const [government, statuses, nights, records] = await Promise.all([
    getGovernment(db, source.governmentId),
    readStatuses(db, [id]),
    recentNights(db, NIGHTS_SHOWN),
    newestRecords(db, id, RECORDS_SHOWN),
  ]);
  const outcomes = await outcomesOn(db, id, nights);
  const d: SourcePageData = {
    source,
    status: statuses.get(id) ?? { reading: true },
    nights: nights.map((night) => {
      const outcome = outcomes.get(night);
      return outcome ? { night, outcome } : { night };
    }),
    records,
    recordsShown: RECORDS_SHOWN,
  };
  if (government) d.government = government;
  return { found: true, value: d };
}
