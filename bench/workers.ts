/**
 * Several workers on one PostgreSQL store: the REAL scheduler, fetcher, journal (group commit),
 * night store and robots cache, each worker with its own connection pool and lease holder, over
 * the simulated fleet of the night benchmark (skewedFleet) in virtual time (src/night/simulate.ts).
 *
 * For 1, 2 and 4 workers (each running DEFAULT_CONCURRENCY lanes at once): the makespan against its lower bound,
 * and the database round trips per request (every statement the pg clients sent: BEGIN,
 * SAVEPOINT and COMMIT included, the night store's and the robots cache's too).
 *
 * Virtual time moves only when no database round trip is in flight (nor waiting for a pooled
 * connection), so time spent in PostgreSQL costs no virtual time and cannot push a lane late;
 * the makespan measures the scheduling, the wall time and round trips measure the database.
 *
 * Run: `NOR_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- workers`
 * (NOR_BENCH_WORKERS_SOURCES=90000 by default; the sites are 30% of the sources).
 */
import pg from "pg";
import { ManualClock } from "../src/clock.js";
import { CounterIds } from "../src/ids.js";
import { createFetcher } from "../src/net/fetcher.js";
import { runNight } from "../src/night/run-night.js";
import { buildSimulation, simReader, skewedFleet } from "../src/night/simulate.js";
import { DEFAULT_CONCURRENCY } from "../src/policy/constants.js";
import { isRecheckNight } from "../src/policy/recheck.js";
import { siteOf } from "../src/policy/site.js";
import { openStore, type Store } from "../src/store/db.js";
import { SqlJournal } from "../src/store/journal.js";
import { SqlNightStore } from "../src/store/night-store.js";
import { SqlRobotsCache } from "../src/store/robots-cache.js";
import { measure } from "./night.js";

const NIGHT = "2026-11-05";
/** Lanes at once per worker: the product's default unless NOR_BENCH_LANES says otherwise. */
const LANES_PER_WORKER = Number(process.env["NOR_BENCH_LANES"] ?? DEFAULT_CONCURRENCY);

/** With NOR_BENCH_SQL_HIST set: round trips by statement text, printed after each run. */
const hist = process.env["NOR_BENCH_SQL_HIST"] ? new Map<string, number>() : undefined;

/** Round trips sent and still in flight, over every pg client of this process. */
const io = { sent: 0, inFlight: 0 };
function countRoundTrips(): void {
  const proto = pg.Client.prototype as unknown as {
    query: (...a: unknown[]) => unknown;
    __norCounted?: boolean;
  };
  if (proto.__norCounted) return;
  proto.__norCounted = true;
  const query = proto.query;
  proto.query = function (this: unknown, ...a: unknown[]) {
    const out = query.apply(this, a);
    if (out && typeof (out as Promise<unknown>).then === "function") {
      if (hist) {
        const q = a[0];
        const text = typeof q === "string" ? q : String((q as { text?: unknown })?.text ?? "?");
        const k = text.replace(/\$\d+/g, "?").slice(0, 90);
        hist.set(k, (hist.get(k) ?? 0) + 1);
      }
      io.sent++;
      io.inFlight++;
      void (out as Promise<unknown>).then(
        () => io.inFlight--,
        () => io.inFlight--,
      );
    }
    return out;
  };
  const pool = pg.Pool.prototype as unknown as { connect: (...a: unknown[]) => unknown };
  const connect = pool.connect;
  pool.connect = function (this: unknown, ...a: unknown[]) {
    const out = connect.apply(this, a);
    if (out && typeof (out as Promise<unknown>).then === "function") {
      io.inFlight++;
      void (out as Promise<unknown>).then(
        () => io.inFlight--,
        () => io.inFlight--,
      );
    }
    return out;
  };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Moves virtual time only when nothing is waiting on PostgreSQL for three turns in a row, then
 * wakes every sleeper due within the next QUANTUM_MS together (so their round trips overlap).
 * A sleeper is woken at most QUANTUM_MS late, never early: no gap is shortened by it.
 */
const QUANTUM_MS = Number(process.env["NOR_BENCH_QUANTUM_MS"] ?? 20);
async function drive(clock: ManualClock, done: () => boolean): Promise<void> {
  for (let steps = 0; !done(); steps++) {
    if (steps > 200_000_000) throw new Error("the simulated night did not settle");
    let idle = 0;
    while (idle < 3 && !done()) {
      await turn();
      idle = io.inFlight === 0 ? idle + 1 : 0;
    }
    if (done()) return;
    const next = clock.nextAt;
    if (next === undefined) await turn();
    else await clock.advance(Math.max(0, next - clock.now()) + QUANTUM_MS);
  }
}

async function freshSchema(base: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(`drop schema if exists "${name}" cascade`);
    await c.query(`create schema "${name}"`);
  } finally {
    await c.end();
  }
  const sep = base.includes("?") ? "&" : "?";
  return `${base}${sep}options=${encodeURIComponent(`-c search_path=${name}`)}`;
}

interface Row {
  workers: number;
  sources: number;
  requests: number;
  reached: number;
  makespanMs: number;
  boundMs: number;
  latencyBoundMs: number;
  busiestLaneMs: number;
  roundTrips: number;
  batches: number;
  writes: number;
  wallS: number;
}

async function oneRun(base: string, workers: number, sources: number): Promise<Row> {
  const url = await freshSchema(
    base,
    `nor_bench_workers_${workers}${process.env["NOR_BENCH_SCHEMA_TAG"] ?? ""}`,
  );
  const clock = new ManualClock(Date.parse("2026-11-05T06:00:00Z"));
  // Without the one 600-source vendor host, so that lane work / lanes sets the bound.
  const specs = skewedFleet(sources, Math.round(sources * 0.3), 11).filter((s) => s.sources < 600);
  const sim = buildSimulation(clock, specs);
  const stores: Store[] = [];
  for (let w = 0; w < workers; w++) stores.push(await openStore({ kind: "postgres", url }));
  const journals = stores.map((s) => new SqlJournal(s.db));
  const sent0 = io.sent;
  const t0 = clock.now();
  const wall0 = process.hrtime.bigint();
  let settled = 0;
  const runs = stores.map((store, w) =>
    runNight(
      sim.catalog,
      {
        store: new SqlNightStore(store.db, (journals[w] as SqlJournal).group),
        clock,
        reader: simReader,
        validators: new SqlNightStore(store.db),
        siteOf,
        isRecheckNight,
        holder: `bench-host:${process.pid}:w${w}`,
        // As compose.ts does, but on the virtual clock: lane leases renewed while lanes run.
        heartbeat: (everyMs, beat) => {
          let stopped = false;
          void (async () => {
            while (!stopped) {
              await clock.sleep(everyMs);
              if (!stopped) await beat().catch(() => {});
            }
          })();
          return () => {
            stopped = true;
          };
        },
        makeFetcher: async (state) =>
          createFetcher({
            clock,
            journal: journals[w] as SqlJournal,
            robotsCache: new SqlRobotsCache(store.db),
            transport: sim.transport,
            deadline: state.deadlineAt,
            night: NIGHT,
            ids: new CounterIds(), // unused: the holder is named
            holder: `bench-host:${process.pid}:w${w}`,
          }),
      },
      { night: NIGHT, deadlineMs: 8 * 3600_000, concurrency: LANES_PER_WORKER },
    ).finally(() => {
      settled++;
    }),
  );
  await drive(clock, () => settled === workers);
  const summaries = await Promise.all(runs);
  const wallS = Number(process.hrtime.bigint() - wall0) / 1e9;
  const roundTrips = io.sent - sent0;
  const b = measure(sim, sim.observed, t0, workers * LANES_PER_WORKER);
  for (const s of stores) await s.close();
  // Every source is committed by exactly one worker: their summaries add up to the night.
  let checked = 0;
  for (const summary of summaries)
    for (const [kind, n] of Object.entries(summary.outcomes))
      if (kind !== "unreached") checked += n;
  return {
    workers,
    sources: sim.catalog.sources.length,
    requests: sim.observed.length,
    reached: checked,
    makespanMs: b.makespan,
    boundMs: b.withGaps,
    latencyBoundMs: b.latencyOnly,
    busiestLaneMs: b.busiest,
    roundTrips,
    batches: journals.reduce((s, j) => s + j.group.stats.batches, 0),
    writes: journals.reduce((s, j) => s + j.group.stats.writes, 0),
    wallS,
  };
}

export async function run(): Promise<string> {
  const base = process.env["NOR_BENCH_POSTGRES_URL"] ?? process.env["NOR_TEST_POSTGRES_URL"];
  if (!base) return "## Workers on PostgreSQL\n\nSkipped: set NOR_BENCH_POSTGRES_URL.";
  const sources = Number(process.env["NOR_BENCH_WORKERS_SOURCES"] ?? 90_000);
  const counts = (process.env["NOR_BENCH_WORKERS"] ?? "1,2,4").split(",").map(Number);
  countRoundTrips();
  const rows: string[] = [];
  for (const w of counts) {
    const r = await oneRun(base, w, sources);
    const h = (ms: number) => `${(ms / 3600_000).toFixed(2)} h`;
    rows.push(
      `| ${r.workers} | ${r.sources.toLocaleString("en-US")} | ${r.reached.toLocaleString("en-US")} | ${r.requests.toLocaleString("en-US")} | ${h(r.makespanMs)} | ${h(r.boundMs)} | **${(r.makespanMs / r.boundMs).toFixed(3)}** | ${h(r.latencyBoundMs)} | ${(r.roundTrips / r.requests).toFixed(1)} | ${(r.writes / Math.max(1, r.batches)).toFixed(2)} | ${r.wallS.toFixed(0)} s |`,
    );
    process.stderr.write(`bench workers: ${rows.at(-1)}\n`);
    if (hist) {
      for (const [k, n] of [...hist].sort((x, y) => y[1] - x[1]).slice(0, 40))
        process.stderr.write(`${(n / r.requests).toFixed(2).padStart(7)}  ${k}\n`);
      hist.clear();
    }
  }
  return [
    "## Workers on PostgreSQL",
    "",
    `Real scheduler, fetcher, journal (group commit), night store and robots cache on PostgreSQL; each worker its own pool and lease holder, ${LANES_PER_WORKER} lanes at once; the simulated fleet of the night benchmark in virtual time (time moves only while no round trip is in flight; sleepers due within ${QUANTUM_MS} ms wake together, late by at most that, never early); the fleet without its 600-source vendor host, so the bound is set by total work. Bound = max(busiest lane, lane work / all lanes), gaps counted as lane work; the latency-only bound leaves the gaps out.`,
    "",
    "| workers | sources | checked | requests | makespan | bound | makespan / bound | latency-only bound | round trips / request | journal writes / commit | wall |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
