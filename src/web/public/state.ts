/**
 * What the directory says about a source's state: read / not read and why (P26), and the
 * nights' outcomes with the reason and the refusal evidence (P23), made from the rows of
 * src/store/read/source-state.ts.
 */
import type { RefusalEvidence } from "../../net/types.js";
import { ownersJudgement, ownersReason } from "../../night/left-alone.js";
import type { WayChoice } from "../../night/types.js";
import { noteLine } from "../../policy/shown-text.js";
import type { Db } from "../../store/db.js";
import { toIso } from "../../store/iso-time.js";
import { latestMarks, markShownAt } from "../../store/marks.js";
import { notReadCandidates, type PageSelection, pagesIn } from "../../store/read/not-read.js";
import {
  lastOutcomeRows,
  type OutcomeRow,
  outcomeRowsSince,
} from "../../store/read/source-state.js";
import { notReadSitesOf, siteNotReadReason } from "../../store/site-rules.js";
import { parseWayChoice } from "../../store/way-choice.js";
import type { NotRead, NotReadPage } from "./not-read.js";
import { sourceName } from "./retired.js";

/**
 * P24/P26: the latest mark decides; no mark at all means read. A source on a site whose owner
 * asked not to be read, or every way of which its site's owner asked to be left alone, is not
 * read whatever its mark says (`siteOwner` names that site): no request goes there, and the page
 * stays listed with its link (P26).
 */
export type ReadStatus =
  | { reading: true; since?: string }
  | { reading: false; reason: string; since: string; siteOwner?: string };

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
  sources: readonly { id: string; url: string }[],
  /** When a way's first request depends on the day (a platform's window of dates): the app's clock. */
  now: number,
  /** Every record page in use (the downloads): the marks read whole, not named one by one. */
  every = false,
): Promise<Map<string, ReadStatus>> {
  return (await statusesAndMarks(db, sources, now, every)).statuses;
}

/**
 * readStatuses, and for each page whose status is its latest mark's (no owner's request decided
 * it), that mark's `at`: its place in the order of decisions, one a source (marks_pk), which the
 * time shown (`since`, the time its host gave it) is not: two marks of one source may share it.
 */
async function statusesAndMarks(
  db: Db,
  sources: readonly { id: string; url: string }[],
  now: number,
  every: boolean,
): Promise<{ statuses: Map<string, ReadStatus>; markAt: Map<string, string> }> {
  const out = new Map<string, ReadStatus>();
  const markAt = new Map<string, string>();
  const ids = sources.map((s) => s.id);
  for (const id of ids) out.set(id, { reading: true });
  for (const [id, m] of await latestMarks(db, every ? undefined : ids)) {
    if (!out.has(id)) continue; // a page not asked about (retired)
    markAt.set(id, m.at);
    out.set(
      id,
      Number(m.reading) === 1
        ? { reading: true, since: markShownAt(m) }
        : { reading: false, reason: m.reason ?? "no reason recorded", since: markShownAt(m) },
    );
  }
  // P26, P18: a page every way of which its site's owner asked to be left alone: no night asks
  // it anything (night/left-alone.ts, the night's own decision).
  const judged = await ownersJudgement(db, sources, now);
  for (const [id, j] of judged) {
    if (j === "asked") continue;
    const { site, rule, since } = j;
    markAt.delete(id);
    out.set(id, {
      reading: false,
      reason: ownersReason(rule),
      since: toIso(since),
      siteOwner: site,
    });
  }
  for (const [id, { site, rule }] of await notReadSitesOf(db, sources)) {
    // Another way of it, on a site that did not ask, is read by the nights (P4).
    if (judged.get(id) === "asked") continue;
    markAt.delete(id);
    out.set(id, {
      reading: false,
      reason: siteNotReadReason(rule),
      since: toIso(rule.at),
      siteOwner: site,
    });
  }
  return { statuses: out, markAt };
}

/**
 * P26: the record pages of a selection (a list's filter, store/read/not-read.ts) that are not
 * read, as their pages say (`readStatuses`: a person's latest mark, or their site's owner's
 * request), with how many pages the selection holds; undefined when every one is read.
 */
export async function notReadOf(
  db: Db,
  sel: PageSelection,
  now: number,
): Promise<NotRead | undefined> {
  const candidates = await notReadCandidates(db, sel);
  if (candidates.length === 0) return undefined;
  const { statuses, markAt } = await statusesAndMarks(
    db,
    candidates.map((c) => c.source),
    now,
    false,
  );
  const pages: NotReadPage[] = [];
  for (const { source, governmentName } of candidates) {
    const st = statuses.get(source.id);
    const at = markAt.get(source.id);
    if (st && !st.reading)
      pages.push({
        id: source.id,
        name: sourceName(source, { name: governmentName }),
        reason: st.reason,
        since: st.since,
        ...(at !== undefined ? { marked: at } : {}),
      });
  }
  return pages.length === 0 ? undefined : { pages, of: await pagesIn(db, sel) };
}

function toOutcome(r: OutcomeRow): Outcome {
  const o: Outcome = {
    night: r.night,
    outcome: r.outcome,
    recordsFound: Number(r.records_found),
    newRecords: Number(r.new_records),
    endedAt: r.ended_at,
  };
  // A reason may carry a site's own words (stored before readers' notes were made one clean
  // line): shown as one line, without controls (policy/shown-text.ts).
  if (r.reason) o.reason = noteLine(r.reason);
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

/** The latest night's outcome of each source. */
export async function lastOutcomes(db: Db, ids: readonly string[]): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  for (const [id, r] of await lastOutcomeRows(db, ids)) out.set(id, toOutcome(r));
  return out;
}

/** One source's outcomes from night `from` on, by night. */
export async function outcomesSince(
  db: Db,
  sourceId: string,
  from: string,
): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  for (const [night, r] of await outcomeRowsSince(db, sourceId, from)) out.set(night, toOutcome(r));
  return out;
}
