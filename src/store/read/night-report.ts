/**
 * What a night did, for the operator: outcomes by kind, the nos with their evidence (P21), the
 * sources the night did not reach, and how many requests went to each site (from the request
 * log, P27). Read-only SQL over the night's and the log's tables; the requests per site are
 * found through the index request_log_night_key (night, request_key: migration 006; since 016 the
 * only one with the night first), never by a scan of the whole log.
 */
import type { RefusalEvidence } from "../../net/types.js";
import { closedIncompleteNights, sentByTheNight } from "../admin.js";
import type { Db } from "../db.js";

export interface NightSummary {
  night: string;
  startedAt: string;
  /** P13: no request starts after it. */
  deadlineAt: string;
  finishedAt: string | null;
  /** P13: finished by being closed incomplete, not run to its end (admin.ts wasClosedIncomplete). */
  closedIncomplete: boolean;
  runs: number;
  sources: number;
  /**
   * How it ran without its catalog files, and why (migration 025, admin.ts
   * recordNightCatalogNote); null when it ran its files.
   */
  catalogNote: string | null;
}

export interface SourceOutcome {
  source: string;
  government: string;
  site: string;
  outcome: string;
  reason: string | null;
  status: number | null;
  url: string | null;
  evidence: RefusalEvidence | null;
}

export interface SiteRequests {
  site: string;
  requests: number;
  bytes: number;
}

export interface NightReport extends NightSummary {
  byKind: { kind: string; count: number }[];
  nos: SourceOutcome[];
  nosBySite: { site: string; count: number }[];
  unreached: SourceOutcome[];
  /** P13, P15: asked and answered, then cut short by the deadline (a retry past it). */
  cutShort: SourceOutcome[];
  requests: SiteRequests[];
  totalRequests: number;
  /** When each source the night reached ended its check, earliest first (ISO). */
  ended: string[];
}

export async function listNights(db: Db): Promise<NightSummary[]> {
  const nights = await db.selectFrom("nights").selectAll().orderBy("night", "desc").execute();
  const counts = await db
    .selectFrom("night_sources")
    .select(["night", (eb) => eb.fn.countAll<number | string>().as("n")])
    .groupBy("night")
    .execute();
  const n = new Map(counts.map((c) => [c.night, Number(c.n)]));
  const incomplete = await closedIncompleteNights(db, nights);
  return nights.map((r) => ({
    night: r.night,
    startedAt: r.started_at,
    deadlineAt: r.deadline_at,
    finishedAt: r.finished_at,
    closedIncomplete: incomplete.has(r.night),
    runs: Number(r.runs),
    sources: n.get(r.night) ?? 0,
    catalogNote: r.catalog_note ?? null,
  }));
}

export async function lastNight(db: Db): Promise<string | undefined> {
  const r = await db
    .selectFrom("nights")
    .select("night")
    .orderBy("night", "desc")
    .executeTakeFirst();
  return r?.night;
}

/** `isNo` says which outcomes are a site's no (the night's closed set, src/night/types.ts). */
export async function nightReport(
  db: Db,
  night: string,
  isNo: (outcome: string) => boolean,
): Promise<NightReport | undefined> {
  const row = await db
    .selectFrom("nights")
    .selectAll()
    .where("night", "=", night)
    .executeTakeFirst();
  if (!row) return undefined;
  const outcomes = await db
    .selectFrom("night_sources as ns")
    .leftJoin("night_catalog as nc", "nc.source_id", "ns.source_id")
    .select([
      "ns.source_id",
      "ns.outcome",
      "ns.reason",
      "ns.status",
      "ns.url",
      "ns.evidence",
      "ns.ended_at",
    ])
    .select(["nc.government", "nc.site"])
    .where("ns.night", "=", night)
    .orderBy("ns.source_id")
    .execute();
  const all: SourceOutcome[] = outcomes.map((o) => ({
    source: o.source_id,
    government: o.government ?? "?",
    site: o.site ?? "?",
    outcome: o.outcome,
    reason: o.reason,
    status: o.status === null ? null : Number(o.status),
    url: o.url,
    evidence: parseEvidence(o.evidence),
  }));
  // When each reached source's check ended, in order: the report's chart of time used (P13).
  const ended = outcomes
    .filter((o) => o.outcome !== "unreached")
    .map((o) => o.ended_at)
    .sort();
  const byKind = countBy(all.map((o) => o.outcome)).map(([kind, count]) => ({ kind, count }));
  const nos = all.filter((o) => isNo(o.outcome));
  const nosBySite = countBy(nos.map((o) => o.site)).map(([site, count]) => ({ site, count }));
  const requests = await db
    .selectFrom("request_log")
    .select([
      "site",
      (eb) => eb.fn.countAll<number | string>().as("n"),
      (eb) => eb.fn.sum<number | string | null>("bytes").as("b"),
    ])
    .where("night", "=", night)
    // Those the night sent, as its summary counts them (nightTotals): not a row never sent, nor
    // nor discover's.
    .where(sentByTheNight)
    .groupBy("site")
    .orderBy("site")
    .execute();
  const perSite = requests.map((r) => ({
    site: r.site,
    requests: Number(r.n),
    bytes: Number(r.b ?? 0),
  }));
  return {
    night: row.night,
    startedAt: row.started_at,
    deadlineAt: row.deadline_at,
    finishedAt: row.finished_at,
    closedIncomplete: (await closedIncompleteNights(db, [row])).has(row.night),
    runs: Number(row.runs),
    sources: all.length,
    catalogNote: row.catalog_note ?? null,
    byKind,
    nos,
    nosBySite,
    unreached: all.filter((o) => o.outcome === "unreached"),
    cutShort: all.filter((o) => o.outcome === "cut-short"),
    requests: perSite,
    totalRequests: perSite.reduce((a, r) => a + r.requests, 0),
    ended,
  };
}

/** Most first, then by name: the operator reads the biggest numbers first. */
function countBy(keys: string[]): [string, number][] {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function parseEvidence(text: string | null): RefusalEvidence | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as RefusalEvidence;
  } catch {
    return { provider: "unreadable", verdict: "suspected", marker: text };
  }
}
