/**
 * What the directory says about a source's state: read / not read and why (P26), and the
 * nights' outcomes with the reason and the refusal evidence (P23). Read-only SQL over the
 * night's tables (src/store/schema/night.ts), the same on SQLite and PostgreSQL.
 */
import type { RefusalEvidence } from "../../../net/types.js";
import { latestMarks } from "../../../night/marks.js";
import type { WayChoice } from "../../../night/types.js";
import { parseWayChoice } from "../../../night/way-choice.js";
import type { Db } from "../../../store/db.js";
import type { NightSourcesTable } from "../../../store/schema/night.js";

/** P24/P26: the latest mark decides; no mark at all means read. */
export type ReadStatus =
  | { reading: true; since?: string }
  | { reading: false; reason: string; since: string };

export interface Outcome {
  night: string;
  outcome: string;
  reason?: string;
  /** P23/P21: who refused (provider) and the vendor's reference id, when the answer gave one. */
  evidence?: RefusalEvidence;
  status?: number;
  url?: string;
  /** P4: the way in used, and the better ways passed over with why. */
  way?: WayChoice;
  recordsFound: number;
  newRecords: number;
  endedAt: string;
}

export async function readStatuses(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, ReadStatus>> {
  const out = new Map<string, ReadStatus>();
  for (const id of ids) out.set(id, { reading: true });
  for (const [id, m] of await latestMarks(db, ids)) {
    out.set(
      id,
      Number(m.reading) === 1
        ? { reading: true, since: m.at }
        : { reading: false, reason: m.reason ?? "no reason recorded", since: m.at },
    );
  }
  return out;
}

type OutcomeRow = Omit<NightSourcesTable, "started_at" | "duration_ms">;

function toOutcome(r: OutcomeRow): Outcome {
  const o: Outcome = {
    night: r.night,
    outcome: r.outcome,
    recordsFound: Number(r.records_found),
    newRecords: Number(r.new_records),
    endedAt: r.ended_at,
  };
  if (r.reason) o.reason = r.reason;
  const evidence = parseEvidence(r.evidence);
  if (evidence) o.evidence = evidence;
  if (r.status !== null) o.status = Number(r.status);
  if (r.url) o.url = r.url;
  const way = parseWayChoice(r.way);
  if (way) o.way = way;
  return o;
}

/** Read defensively: a store written by an older build may hold other shapes. */
function parseEvidence(text: string | null): RefusalEvidence | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v !== "object" || v === null || typeof v["provider"] !== "string") return undefined;
    const e: RefusalEvidence = {
      provider: v["provider"],
      verdict: String(v["verdict"] ?? "status") as RefusalEvidence["verdict"],
    };
    if (typeof v["marker"] === "string") e.marker = v["marker"];
    if (typeof v["reference"] === "string") e.reference = v["reference"];
    return e;
  } catch {
    return undefined;
  }
}

const OUTCOME_COLUMNS = [
  "night",
  "source_id",
  "outcome",
  "reason",
  "evidence",
  "status",
  "url",
  "way",
  "records_found",
  "new_records",
  "ended_at",
] as const;

/** The latest night's outcome of each source. */
export async function lastOutcomes(db: Db, ids: readonly string[]): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("night_sources")
    .select([...OUTCOME_COLUMNS])
    .where("source_id", "in", [...ids])
    .orderBy("night", "asc")
    .execute();
  for (const r of rows) out.set(r.source_id, toOutcome(r));
  return out;
}

/** The nights that ran, newest first (the columns of "the last nights at a glance"). */
export async function recentNights(db: Db, count: number): Promise<string[]> {
  const rows = await db
    .selectFrom("nights")
    .select("night")
    .orderBy("night", "desc")
    .limit(count)
    .execute();
  return rows.map((r) => r.night);
}

/** One source's outcomes on the given nights; a night it was not checked is absent. */
export async function outcomesOn(
  db: Db,
  sourceId: string,
  nights: readonly string[],
): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  if (nights.length === 0) return out;
  const rows = await db
    .selectFrom("night_sources")
    .select([...OUTCOME_COLUMNS])
    .where("source_id", "=", sourceId)
    .where("night", "in", [...nights])
    .execute();
  for (const r of rows) out.set(r.night, toOutcome(r));
  return out;
}
