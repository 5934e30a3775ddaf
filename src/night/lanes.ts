/**
 * P9: one lane per site. The plan groups tonight's sources into lanes and orders them:
 * inside a lane, sources not reached last night first (P13), then by longest since last
 * checked; across lanes, lanes holding unreached sources first, then the busiest lanes first
 * (longest-processing-time first), so the night's makespan is bounded by its longest lane.
 */
import { MIN_GAP_MS } from "../policy/constants.js";
import type { Source } from "../sources/catalog/types.js";
import type { SourceHistory } from "./types.js";

export interface PlannedSource {
  source: Source;
  history: SourceHistory;
}

export interface Lane {
  site: string;
  sources: PlannedSource[];
  /** Expected time the lane needs, ms (last nights' measured checks, else a default). */
  estimateMs: number;
  hasUnreached: boolean;
}

/** A source never measured: one request plus the floor gap, a guess refined after a night. */
export const DEFAULT_SOURCE_ESTIMATE_MS = MIN_GAP_MS + 1_000;

/** P13: unreached first; then the longest since last checked (never checked = longest). */
export function compareSources(a: PlannedSource, b: PlannedSource): number {
  if (a.history.unreachedLast !== b.history.unreachedLast) return a.history.unreachedLast ? -1 : 1;
  const ta = a.history.lastCheckedAt ?? Number.NEGATIVE_INFINITY;
  const tb = b.history.lastCheckedAt ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.source.id < b.source.id ? -1 : a.source.id > b.source.id ? 1 : 0;
}

export function planLanes(
  items: readonly PlannedSource[],
  siteOfSource: (s: Source) => string,
): Lane[] {
  const bySite = new Map<string, PlannedSource[]>();
  for (const it of items) {
    const site = siteOfSource(it.source);
    const list = bySite.get(site);
    if (list) list.push(it);
    else bySite.set(site, [it]);
  }
  const lanes: Lane[] = [];
  for (const [site, sources] of bySite) {
    sources.sort(compareSources);
    let estimateMs = 0;
    for (const s of sources) estimateMs += s.history.lastDurationMs ?? DEFAULT_SOURCE_ESTIMATE_MS;
    lanes.push({
      site,
      sources,
      estimateMs,
      hasUnreached: sources.some((s) => s.history.unreachedLast),
    });
  }
  lanes.sort((a, b) => {
    if (a.hasUnreached !== b.hasUnreached) return a.hasUnreached ? -1 : 1;
    if (a.estimateMs !== b.estimateMs) return b.estimateMs - a.estimateMs;
    return a.site < b.site ? -1 : a.site > b.site ? 1 : 0;
  });
  return lanes;
}
