/**
 * P9: one lane per site. The plan groups tonight's sources into lanes and orders them:
 * inside a lane, the sources read before the rechecks of those marked not read (P25; a recheck
 * not reached two nights running ranks as a source read, after those read not reached last
 * night: rechecksDue), then sources not reached last night first (P13; not asked because their
 * site's no closed it that night too, P21), then by longest since last checked;
 * across lanes, lanes holding unreached sources first (P13), then lanes holding sources their
 * site's no kept from being asked last night (P21: first in their lane, but not before a page the
 * deadline kept from being reached, P23: the same pace), then:
 *
 * - when the night's estimated work fits before the deadline (total / concurrency), the
 *   busiest lanes first (longest-processing-time first), so the night's makespan is bounded
 *   by its longest lane;
 * - when it does not, the cheapest lanes per source first (the estimated time a lane holds
 *   its worker, divided by its sources), which reaches the most sources before the deadline
 *   cuts: a worker spends the night's scarce time where it buys the most sources. The ones
 *   cut are among the costliest per source; they are tonight's unreached and go first
 *   tomorrow, so no source waits two nights running unless last night's unreached alone
 *   overfill a night (shortNightOrder).
 *
 * Never a shorter gap or a skipped robots.txt: only the order changes (P10, P13).
 */
import { MIN_GAP_MS } from "../policy/constants.js";
import type { Source } from "../sources/catalog/types.js";
import type { SourceHistory } from "./types.js";

/**
 * What the plan knows of a source: its id, government and URL (its site). Its whole entry (its
 * ways in) is loaded when its lane starts (run-night.ts, `NightSources`).
 */
export type PlanSource = Pick<Source, "id" | "government" | "url">;

export interface PlannedSource {
  source: PlanSource;
  history: SourceHistory;
}

export interface Lane {
  site: string;
  sources: PlannedSource[];
  /** Expected time the lane needs, ms (last nights' measured checks, else a default). */
  estimateMs: number;
  /** A source last night did not reach (the deadline, its site down, the checker offline). */
  hasUnreached: boolean;
  /** A source last night did not ask as its site's no closed the site (P21), none unreached. */
  hasClosedUnasked?: boolean;
}

/** P13, P21: 0 for a lane holding last night's unreached, 1 for its site's no's unasked, else 2. */
function tier(l: Lane): number {
  return l.hasUnreached ? 0 : l.hasClosedUnasked ? 1 : 2;
}

/** A source never measured: one request plus the floor gap, a guess refined after a night. */
export const DEFAULT_SOURCE_ESTIMATE_MS = MIN_GAP_MS + 1_000;

/**
 * P25, P13: a recheck not reached on the last two nights it was to be asked (its lane cut before
 * its end by the deadline, say, night after night): it takes its turn among its site's pages that
 * are read, as one of them, no longer behind them all, which in a lane whose pages read alone
 * fill the night would keep it owed and unasked every night.
 */
function waitedTwice(h: SourceHistory): boolean {
  // Not for its site down or asking to wait (its pages read were kept from those nights too, and
  // a no it met first would cost them one more): unreachedRun counts the nights time ran out.
  return !h.reading && (h.unreachedRun ?? 0) >= 2;
}

/**
 * P25: sources read before rechecks (a page a person marked not read, opened to see whether the
 * no still stands, comes after its site's pages that are read, so a no it meets, which closes
 * the site for the night (P21), does not cost them their night, even a recheck last night did
 * not reach), save a recheck not reached two nights running (waitedTwice), which ranks as a page
 * read; then, P13, last night's unreached first (not asked as its site's no closed it that night
 * included; its lane goes first in a night too short: shortNightOrder), a page read before a
 * recheck among them (its turn may come first, planLanes' rechecksDue); then the longest since
 * last checked (never checked = longest).
 */
export function compareSources(a: PlannedSource, b: PlannedSource): number {
  const ra = a.history.reading || waitedTwice(a.history);
  const rb = b.history.reading || waitedTwice(b.history);
  if (ra !== rb) return ra ? -1 : 1;
  if (a.history.unreachedLast !== b.history.unreachedLast) return a.history.unreachedLast ? -1 : 1;
  if (a.history.reading !== b.history.reading) return a.history.reading ? -1 : 1;
  const ta = a.history.lastCheckedAt ?? Number.NEGATIVE_INFINITY;
  const tb = b.history.lastCheckedAt ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.source.id < b.source.id ? -1 : a.source.id > b.source.id ? 1 : 0;
}

export interface PlanOptions {
  /** Lanes worked at once. */
  concurrency: number;
  /** Time left before the deadline, ms. */
  availableMs: number;
}

/** Estimated ms per source: the time the lane holds a worker, shared by its sources. */
function costPerSource(l: Lane): number {
  return l.estimateMs / l.sources.length;
}

/** Cheapest per source first; at equal cost the lane with more sources, then by site. */
function byCost(a: Lane, b: Lane): number {
  const ca = costPerSource(a);
  const cb = costPerSource(b);
  if (ca !== cb) return ca - cb;
  if (a.sources.length !== b.sources.length) return b.sources.length - a.sources.length;
  return bySite(a, b);
}

function bySite(a: Lane, b: Lane): number {
  return a.site < b.site ? -1 : a.site > b.site ? 1 : 0;
}

/**
 * How much of the night's estimated work does not fit before the deadline, ms of a worker's
 * time (0 when it fits). Without options (a plan outside a night) it is taken to fit.
 */
export function overflowMs(lanes: readonly Lane[], opts?: PlanOptions): number {
  if (!opts) return 0;
  let total = 0;
  for (const l of lanes) total += l.estimateMs;
  return Math.max(0, total - Math.max(1, opts.concurrency) * opts.availableMs);
}

/**
 * The order of a night too short for its sources (P13). Last night's unreached first, cheapest
 * per source first among them; then the rest cheapest first, so the deadline cuts among the
 * costliest. Which of them: about `overflow` of work is cut tonight and goes first tomorrow,
 * when as much again is cut from the rest. Cutting tonight the very costliest (the fewest
 * sources) leaves tomorrow the next tier (more sources), and the nights alternate between a
 * good and a poor one. So the costliest lanes worth twice the overflow (the "tail": what
 * tonight and tomorrow cut between them) are split: tonight's cut is chosen from the tail's
 * lanes not waiting since last night, worth the overflow and holding about half the tail's
 * sources, and goes last; the rest of the tail runs before it. Each night then cuts about half
 * the tail's sources. Lanes never measured are all estimated alike, so a first night cuts
 * arbitrarily among them; from the next night on the measured costs order the plan.
 */
function shortNightOrder(lanes: Lane[], overflow: number): Lane[] {
  const waited = lanes.filter((l) => l.hasUnreached).sort(byCost);
  // P21, P23: a site's no's unasked next (a lane that said no costs a request; one that does not
  // tonight costs its pages, which must not keep a page the deadline cut from a second night).
  const unasked = lanes.filter((l) => tier(l) === 1).sort(byCost);
  const rest = lanes.filter((l) => tier(l) === 2).sort(byCost);
  const tail = new Set<Lane>();
  const all = [...lanes].sort(byCost);
  let tailSources = 0;
  let acc = 0;
  for (let i = all.length - 1; i >= 0 && acc < 2 * overflow; i--) {
    const l = all[i] as Lane;
    tail.add(l);
    acc += l.estimateMs;
    tailSources += l.sources.length;
  }
  const candidates = rest.filter((l) => tail.has(l));
  const cut = chooseCut(candidates, overflow, tailSources / 2);
  const before: Lane[] = [];
  const last: Lane[] = [];
  for (const l of rest) (cut.has(l) ? last : before).push(l);
  return [...waited, ...unasked, ...before, ...last];
}

/**
 * Lanes worth `cost` of work holding about `sources` sources, from `lanes` (cheapest per
 * source first): taken from either end, the costly end while the pick holds too many sources
 * for its cost, the cheap end while it holds too few.
 */
function chooseCut(lanes: readonly Lane[], cost: number, sources: number): Set<Lane> {
  const out = new Set<Lane>();
  const perSource = sources > 0 ? cost / sources : Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = lanes.length - 1;
  let c = 0;
  let n = 0;
  while (lo <= hi && c < cost) {
    const costly = n === 0 || c / n < perSource;
    const l = lanes[costly ? hi-- : lo++] as Lane;
    out.add(l);
    c += l.estimateMs;
    n += l.sources.length;
  }
  return out;
}

/** P13: nights running a page read was not reached, last night's (whatever kept it) counted. */
function nightsWaited(h: SourceHistory): number {
  return Math.max(h.unreachedRun ?? 0, h.unreachedLast ? 1 : 0);
}

/**
 * P25, P13, P21: a lane's sources in compareSources' order, a recheck not reached two nights
 * running (waitedTwice) after last night's unreached pages read: going before them, a no it meets
 * (P21) or its own turn would keep them from a second night running. It goes first only once it
 * has waited longer than they would then have (more nights than the longest waiting of them, plus
 * one), so a lane whose unreached pages read alone fill the night does not keep it unasked.
 */
function rechecksDue(sources: PlannedSource[]): PlannedSource[] {
  let longest = -1;
  for (const s of sources)
    if (s.history.reading && s.history.unreachedLast)
      longest = Math.max(longest, nightsWaited(s.history));
  if (longest < 0) return sources;
  const due = sources.filter(
    (s) =>
      !s.history.reading && waitedTwice(s.history) && (s.history.unreachedRun ?? 0) > longest + 1,
  );
  if (due.length === 0) return sources;
  return [...due, ...sources.filter((s) => !due.includes(s))];
}

export function planLanes(
  items: readonly PlannedSource[],
  siteOfSource: (s: PlanSource) => string,
  opts?: PlanOptions,
): Lane[] {
  const bySiteMap = new Map<string, PlannedSource[]>();
  for (const it of items) {
    const site = siteOfSource(it.source);
    const list = bySiteMap.get(site);
    if (list) list.push(it);
    else bySiteMap.set(site, [it]);
  }
  const lanes: Lane[] = [];
  for (const [site, unordered] of bySiteMap) {
    const sources = rechecksDue(unordered.sort(compareSources));
    let estimateMs = 0;
    for (const s of sources) estimateMs += s.history.lastDurationMs ?? DEFAULT_SOURCE_ESTIMATE_MS;
    const hasUnreached = sources.some((s) => s.history.unreachedLast && !s.history.closedLast);
    const lane: Lane = { site, sources, estimateMs, hasUnreached };
    if (!hasUnreached && sources.some((s) => s.history.closedLast)) lane.hasClosedUnasked = true;
    lanes.push(lane);
  }
  const overflow = overflowMs(lanes, opts);
  if (overflow > 0) return shortNightOrder(lanes, overflow);
  lanes.sort((a, b) => {
    if (tier(a) !== tier(b)) return tier(a) - tier(b);
    if (a.estimateMs !== b.estimateMs) return b.estimateMs - a.estimateMs;
    return bySite(a, b);
  });
  return lanes;
}
