/**
 * docs/benchmarks.md "The real 2 s gap end to end": a REAL `nor night` (the CLI's main in
 * this process, as in bench/loopback.ts) against loopback sites at the real gap: no
 * `--gap-ms`, so the 2 s floor of P10 holds as it does towards any site. As many lanes as
 * sites, so every site runs at once and the night's optimum is its longest site chain: that
 * site's requests' service times (as the site saw them) plus 2 s between each two.
 *
 * The sites' child process (bench/loopback-sites.ts) records each request's arrival and the
 * moment the last byte of its response went to the socket, so each gap is measured on the
 * site's side, as P10 defines it: from the end of one request to the start of the next. The
 * site sees at least the gap the checker waited (the response still has to reach the checker,
 * the next request to reach the site); a gap under 2 s here is a politeness bug.
 *
 * Night 1: robots.txt + every feed, all new (11 requests, 10 gaps a site with 10 sources).
 * Night 2: every feed with its validators, 304 (robots.txt is cached for the day: 10 requests,
 * 9 gaps). `BENCH_SITES` (default 200) and `BENCH_SOURCES_PER_SITE` (default 10) size it;
 * `BENCH_RUNS` (default 1) repeats both nights, each time on a fresh store, and gives medians.
 *
 * Beside each gap the site saw, the gap the checker itself counted: from the request log
 * (P27), the next attempt's start (the moment its admission decided to send) minus the previous
 * attempt's end (when its body had been read). The site's gap exceeds it by what lies outside
 * the checker's count: the response's way back, the admission's commit and the request's way
 * out.
 */

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent } from "undici";
import { MIN_GAP_MS } from "../src/policy/constants.js";
import { openStore, storeLocationFromOptions } from "../src/store/db.js";
import { SqlRequestLog } from "../src/store/request-log.js";
import { bareUndici, norNight, type Req, startSites, writeFeedCatalog } from "./loopback.js";

interface NightGaps {
  requests: number;
  gaps: number[];
  /** First arrival at any site to the end of the last response anywhere. */
  makespanMs: number;
  /** The longest site chain: its service times plus MIN_GAP_MS between each two requests. */
  optimumMs: number;
  /** The worst site's own span (its first arrival to its last end) over its own chain. */
  worstSiteRatio: number;
  /** The last site's first arrival after the first site's. */
  startSpreadMs: number;
  /** The longest service time a site saw (arrival to response end). */
  maxServiceMs: number;
  /** Per gap, the checker's own count of it (request log: next start − previous end). */
  journalGaps: number[];
  /** Per gap, the site's gap minus the checker's count. */
  outsideMs: number[];
  /** Per gap, the part of outsideMs before the checker's count began: the checker noted the
   * previous answer's end this long after the site's end of it. */
  endLagMs: number[];
  /** Per gap, the rest: the site saw the request this long after the checker decided to send. */
  startLagMs: number[];
  /** Each gap under MIN_GAP_MS: as the site saw it, as the checker counted it, and the
   * previous request's service time as the site measured it (a late end shows there). */
  short: { gap: number; own: number; prevServiceMs: number }[];
  /** `nor night` as a whole: store, catalog import, planning, the requests, the summary. */
  commandMs: number;
  /** This process's CPU (user + system) during `nor night`: the engine's, the sites being apart. */
  cpuMs: number;
  load: [number, number];
}

function timings(child: ChildProcess): Promise<number[][]> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve((m as { timings: number[][] }).timings));
    child.send("timings");
  });
}

/** Nearest-rank percentile of an ascending list. */
function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))
  ] as number;
}

/** Each site's logged attempts (start, end), from the store the night wrote, since `since`. */
async function logged(dataDir: string, since: number): Promise<Map<string, [number, number][]>> {
  const store = await openStore(storeLocationFromOptions({ data: dataDir }));
  try {
    const out = new Map<string, [number, number][]>();
    for (const e of await new SqlRequestLog(store.db).query({ since })) {
      const list = out.get(e.site) ?? [];
      list.push([e.startedAt, e.endedAt ?? Number.NaN]);
      out.set(e.site, list);
    }
    return out;
  } finally {
    await store.close();
  }
}

function analyse(
  perSite: readonly number[][],
  origins: readonly string[],
  log: Map<string, [number, number][]>,
): Omit<NightGaps, "commandMs" | "cpuMs" | "load"> {
  const gaps: number[] = [];
  const journalGaps: number[] = [];
  const outsideMs: number[] = [];
  const endLagMs: number[] = [];
  const startLagMs: number[] = [];
  const short: NightGaps["short"] = [];
  let requests = 0;
  let first = Number.POSITIVE_INFINITY;
  let lastFirst = Number.NEGATIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let optimumMs = 0;
  let worstSiteRatio = 0;
  let maxServiceMs = 0;
  perSite.forEach((flat, site) => {
    const served: { a: number; e: number }[] = [];
    for (let k = 0; k + 1 < flat.length; k += 2)
      served.push({ a: flat[k] as number, e: flat[k + 1] as number });
    if (served.length === 0) return;
    // By arrival: two requests overlapping at one site (a P9 breach) show as a negative gap.
    served.sort((x, y) => x.a - y.a);
    // The same requests as the checker logged them (one row per attempt, P27), in order.
    const rows = (log.get(new URL(origins[site] as string).hostname) ?? []).sort(
      (x, y) => x[0] - y[0],
    );
    requests += served.length;
    let chain = 0;
    for (let k = 0; k < served.length; k++) {
      const r = served[k] as { a: number; e: number };
      chain += r.e - r.a;
      maxServiceMs = Math.max(maxServiceMs, r.e - r.a);
      if (k > 0) {
        const prev = served[k - 1] as { a: number; e: number };
        const gap = r.a - prev.e;
        gaps.push(gap);
        chain += MIN_GAP_MS;
        let own = Number.NaN;
        if (rows.length === served.length) {
          own = (rows[k] as [number, number])[0] - (rows[k - 1] as [number, number])[1];
          journalGaps.push(own);
          outsideMs.push(gap - own);
          endLagMs.push((rows[k - 1] as [number, number])[1] - prev.e);
          startLagMs.push(r.a - (rows[k] as [number, number])[0]);
        }
        if (gap < MIN_GAP_MS) short.push({ gap, own, prevServiceMs: prev.e - prev.a });
      }
    }
    const start = (served[0] as { a: number }).a;
    const end = Math.max(...served.map((r) => r.e));
    first = Math.min(first, start);
    lastFirst = Math.max(lastFirst, start);
    last = Math.max(last, end);
    optimumMs = Math.max(optimumMs, chain);
    worstSiteRatio = Math.max(worstSiteRatio, (end - start) / chain);
  });
  for (const list of [gaps, journalGaps, outsideMs, endLagMs, startLagMs])
    list.sort((a, b) => a - b);
  return {
    requests,
    gaps,
    journalGaps,
    outsideMs,
    endLagMs,
    startLagMs,
    short,
    makespanMs: last - first,
    optimumMs,
    worstSiteRatio,
    startSpreadMs: lastFirst - first,
    maxServiceMs,
  };
}

/**
 * The baseline: the same requests made by bare undici at the same gap, every site at once, each
 * site's next request sent 2001 ms after the previous answer's body was read (as the checker
 * counts its gap), with nothing else to do. What the machine, the sites' process and the timers
 * alone give; the engine's lateness is what it adds to this.
 */
async function paced(sites: readonly Req[][]): Promise<void> {
  const agent = new Agent({ connections: 1 });
  try {
    await Promise.all(
      sites.map(async (reqs) => {
        let lastEnd: number | undefined;
        for (const r of reqs) {
          if (lastEnd !== undefined) {
            const at = lastEnd + MIN_GAP_MS + 1;
            for (let i = 0; i < 1_000 && Date.now() < at; i++) await sleep(at - Date.now());
          }
          await bareUndici(r, agent);
          lastEnd = Date.now();
        }
      }),
    );
  } finally {
    await agent.close();
  }
}

/** Wall time, this process's CPU (user + system) and the load average before and after `fn`. */
async function timed(
  fn: () => Promise<unknown>,
): Promise<Pick<NightGaps, "commandMs" | "cpuMs" | "load">> {
  const load0 = loadavg()[0] as number;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await fn();
  const commandMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    commandMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    load: [load0, loadavg()[0] as number],
  };
}

const f0 = (n: number) => n.toFixed(0);
const f1 = (n: number) => n.toFixed(1);

export async function run(): Promise<string> {
  const SITES = Number(process.env["BENCH_SITES"] ?? "200");
  const PER = Number(process.env["BENCH_SOURCES_PER_SITE"] ?? "10");
  const { child, origins } = await startSites(SITES);
  const data = mkdtempSync(join(tmpdir(), "nor-bench-gaps-"));
  try {
    const { catalog, night1, night2 } = writeFeedCatalog(data, origins, PER);
    // Each run: both nights on a fresh store. Two runs of the same code differ by about as much
    // as a target's margin, so BENCH_RUNS > 1 gives each run's rows and the medians.
    const RUNS = Math.max(1, Math.floor(Number(process.env["BENCH_RUNS"] ?? "1")));
    const nights: (NightGaps & { run: number; night: number; bare?: true })[] = [];
    for (let r = 0; r < RUNS; r++) {
      // The real gap: no --gap-ms. --allow-private-addresses only lets it reach loopback.
      const store = join(data, `store-${r}`);
      const common = ["--catalog", catalog, "--data", store];
      common.push("--allow-private-addresses", "--concurrency", `${SITES}`);
      for (const [k, night] of ["2026-11-05", "2026-11-06"].entries()) {
        // Real nights are a day apart. Run back to back, night 2's first request to each site
        // would (rightly, P10 across commands) wait out 2 s from night 1's last answer there,
        // and its start spread would be night 1's spread of last ends, not night 2's own. A
        // run's fresh store does not know the last run's ends: the same wait keeps the gap.
        if (nights.length > 0) await sleep(MIN_GAP_MS + 1_000);
        child.send("reset");
        const since = Date.now();
        const cost = await timed(() => norNight([...common, "--night", night]));
        const seen = analyse(await timings(child), origins, await logged(store, since));
        nights.push({ ...seen, ...cost, run: r + 1, night: k + 1 });
      }
      // The baseline, after the engine's nights: the same two request lists, bare undici.
      for (const [k, reqs] of [night1, night2].entries()) {
        await sleep(MIN_GAP_MS + 1_000);
        child.send("reset");
        const cost = await timed(() => paced(reqs));
        const seen = analyse(await timings(child), origins, new Map());
        nights.push({ ...seen, ...cost, run: r + 1, night: k + 1, bare: true });
      }
    }
    const engineNights = nights.filter((n) => n.bare === undefined);
    const label = (n: { run: number; night: number; bare?: true }) =>
      `${RUNS > 1 ? `run ${n.run}, ` : ""}${n.bare ? "bare undici, the same requests as " : ""}${n.night === 1 ? "night 1 (robots.txt + feeds, 200)" : "night 2 (feeds, 304)"}`;
    const median = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      const m = Math.floor(v.length / 2);
      return v.length % 2 === 1 ? (v[m] as number) : ((v[m - 1] as number) + (v[m] as number)) / 2;
    };
    const summary =
      RUNS > 1
        ? [1, 2].map((k) => {
            const of = engineNights.filter((n) => n.night === k);
            const p99s = of.map((n) => pct(n.gaps, 0.99));
            const ratios = of.map((n) => n.makespanMs / n.optimumMs);
            return `Night ${k}, ${RUNS} runs: p99 gap median **${f1(median(p99s))} ms** (${p99s.filter((x) => x <= 2_100).length} of ${RUNS} ≤ 2100 ms); makespan / optimum median **${median(ratios).toFixed(3)}×** (${ratios.filter((x) => x <= 1.02).length} of ${RUNS} ≤ 1.020×).`;
          })
        : [];
    const rows = nights.map((n) => {
      const under = n.short.length;
      const certain = n.short.filter((g) => g.gap + g.prevServiceMs < MIN_GAP_MS).length;
      const over = n.gaps.filter((g) => g > 2_100).length;
      return `| ${label(n)} | ${n.requests} | ${n.gaps.length} | ${f1(pct(n.gaps, 0.5))} | **${f1(pct(n.gaps, 0.99))}** | ${f1(n.gaps[n.gaps.length - 1] ?? Number.NaN)} | ${under} / **${certain}** | ${over} | ${f0(n.optimumMs)} | ${f0(n.makespanMs)} | **${(n.makespanMs / n.optimumMs).toFixed(3)}×** | ${n.worstSiteRatio.toFixed(3)}× | ${f0(n.startSpreadMs)} | ${f0(n.commandMs)} | ${f1(n.cpuMs / 1000)} s (${((100 * n.cpuMs) / n.commandMs).toFixed(0)}%) | ${n.load.map(f1).join(" → ")} |`;
    });
    // The site's end time lies between the answer's arrival (it is written at once) and its
    // "finish" (late when the sites' process was descheduled). A gap under 2 s even from the
    // previous arrival is certain; one under 2 s only from a late "finish" is not.
    const bugs = nights.flatMap((n) => {
      if (n.short.length === 0) return [];
      const certain = n.short.filter((g) => g.gap + g.prevServiceMs < MIN_GAP_MS);
      const each = n.short
        .map(
          (g) =>
            `${f1(g.gap)} ms (${f1(g.gap + g.prevServiceMs)} ms from the previous arrival; the checker counted ${f0(g.own)} ms)`,
        )
        .join("; ");
      return [
        certain.length > 0
          ? `**POLITENESS BUG (P10): ${label(n)} has ${certain.length} gaps under ${MIN_GAP_MS} ms even counted from the previous request's arrival: ${each}.**`
          : `${label(n)}: ${n.short.length} gaps under ${MIN_GAP_MS} ms from the previous answer's "finish", none from its arrival, so only the site's late end time puts them under: ${each}.`,
      ];
    });
    return [
      "## The real 2 s gap end to end (a real `nor night` over loopback)",
      "",
      `${SITES} loopback sites × ${PER} RSS sources, ${SITES} lanes (every site at once), the real gap`,
      `(${MIN_GAP_MS} ms), SQLite store, WARC archive; the sites in a child process that times each`,
      "request. Gap = a request's arrival − the end of the previous response at the same site (ms).",
      "Optimum = the longest site chain (its service times + the gaps at exactly 2 s); makespan =",
      "the first arrival anywhere to the last response end anywhere. The baseline rows (bare undici,",
      "the same requests): each site's next request sent 2001 ms after the previous body was read,",
      "nothing else done, in this process after the engine's nights: what the machine, the timers",
      "and the sites' process give without the engine.",
      "",
      "| night | requests | gaps | p50 gap | p99 gap | max gap | gaps < 2000: from the end / from the arrival | gaps > 2100 | optimum (ms) | makespan (ms) | makespan / optimum | worst site's span / its chain | start spread (ms) | `nor night` or the baseline (ms) | its CPU (share of a core) | load (1 min) |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      ...(summary.length > 0 ? [...summary, ""] : []),
      ...(bugs.length > 0 ? [...bugs, ""] : []),
      "The same gaps as the checker counted them (request log: the next attempt's start − the previous one's end), and what the site saw beyond that count (ms):",
      "",
      "| night | gaps matched | checker's count p50 | p99 | max | beyond it p50 | p99 | max | of which: end noted late p50 / p99 | sent late p50 / p99 |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...engineNights.map(
        (n) =>
          `| ${label(n)} | ${n.journalGaps.length} | ${f1(pct(n.journalGaps, 0.5))} | ${f1(pct(n.journalGaps, 0.99))} | ${f1(n.journalGaps.at(-1) ?? Number.NaN)} | ${f1(pct(n.outsideMs, 0.5))} | ${f1(pct(n.outsideMs, 0.99))} | ${f1(n.outsideMs.at(-1) ?? Number.NaN)} | ${f1(pct(n.endLagMs, 0.5))} / ${f1(pct(n.endLagMs, 0.99))} | ${f1(pct(n.startLagMs, 0.5))} / ${f1(pct(n.startLagMs, 0.99))} |`,
      ),
      "",
      `Longest service time a site saw: ${nights.map((n) => `${f1(n.maxServiceMs)} ms`).join(", ")}. Start spread: the last site's first request after the first site's.`,
    ].join("\n");
  } finally {
    child.disconnect();
    rmSync(data, { recursive: true, force: true });
  }
}
