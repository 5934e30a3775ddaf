/**
 * docs/benchmarks.md "Where a warm request's time goes, statement by statement": the SQL a real
 * `nor night` runs (the CLI's own code in this process, as in bench/loopback.ts: 200 loopback
 * sites × 10 feeds, gap 0, SQLite store, WARC archive), statement by statement. Every
 * better-sqlite3 statement this process runs while a night is measured is timed where it runs
 * (Statement#run/all/get/iterate, Database#exec): how many, and their wall time, which for a
 * COMMIT includes its WAL writes and fsync. The process's CPU for the night is beside it.
 *
 * Nights 1 and 2 run once on a first store (V8 compiles the engine: not counted), then again on
 * a fresh store, measured: night 1 (robots.txt + every feed, new) and night 2 (every feed, 304);
 * then night 3, the sites sending every feed again whole (loopback-sites.ts "no-304").
 * `BENCH_SITES` (default 200) and `BENCH_SOURCES_PER_SITE` (default 10) size it;
 * `BENCH_STATEMENTS_TOP` lists that many statements a night (default: the costliest 20 or 25).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { conditional, norNight, startSites, writeFeedCatalog } from "./loopback.js";

interface Tally {
  n: number;
  us: number;
}

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Times every statement while `on`. better-sqlite3's prototypes are patched until `remove()`,
 * so that the benches run after this one in the same process run unpatched.
 */
class Probe {
  on = false;
  readonly tallies = new Map<string, Tally>();
  readonly #restore: (() => void)[] = [];

  constructor() {
    const probe = this;
    const scratch = new Database(":memory:");
    const stmtProto = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<string, Fn>;
    scratch.close();
    const wrap = (
      proto: Record<string, Fn>,
      name: string,
      key: (self: unknown, args: unknown[]) => string,
    ) => {
      const orig = proto[name];
      if (orig === undefined) throw new Error(`better-sqlite3 has no ${name}`);
      this.#restore.push(() => {
        proto[name] = orig;
      });
      proto[name] = function (this: unknown, ...args: unknown[]) {
        if (!probe.on) return orig.apply(this, args);
        const t0 = process.hrtime.bigint();
        try {
          return orig.apply(this, args);
        } finally {
          probe.add(key(this, args), Number(process.hrtime.bigint() - t0) / 1000);
        }
      };
    };
    const source = (self: unknown) => (self as { source: string }).source;
    for (const m of ["run", "all", "get", "iterate"]) wrap(stmtProto, m, source);
    wrap(Database.prototype as unknown as Record<string, Fn>, "exec", (_self, args) =>
      String(args[0]),
    );
  }

  remove(): void {
    for (const undo of this.#restore.splice(0)) undo();
  }

  add(sql: string, us: number): void {
    const key = shorten(sql);
    const t = this.tallies.get(key) ?? { n: 0, us: 0 };
    t.n++;
    t.us += us;
    this.tallies.set(key, t);
  }
}

/** The statement's text on one line, its lists of `?` folded, cut to a table cell's length. */
function shorten(sql: string): string {
  const one = sql
    .replace(/\s+/g, " ")
    .replace(/\(\?(, \?)+\)/g, "(?, …)")
    .replace(/(\(\?, …\))(, \(\?, …\))+/g, "$1, …")
    .trim();
  return one.length > 110 ? `${one.slice(0, 107)}…` : one;
}

interface Measured {
  cpuMs: number;
  requests: number;
  tallies: Map<string, Tally>;
}

async function measured(
  probe: Probe,
  requests: number,
  fn: () => Promise<unknown>,
): Promise<Measured> {
  probe.tallies.clear();
  const cpu0 = process.cpuUsage();
  probe.on = true;
  try {
    await fn();
  } finally {
    probe.on = false;
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, requests, tallies: new Map(probe.tallies) };
}

function table(label: string, m: Measured, top: number): string[] {
  let n = 0;
  let us = 0;
  for (const t of m.tallies.values()) {
    n += t.n;
    us += t.us;
  }
  const rows = [...m.tallies]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, Number(process.env["BENCH_STATEMENTS_TOP"] ?? top));
  const per = (x: number) => (x / m.requests).toFixed(2);
  return [
    `**${label}**: ${m.requests} requests, the process's CPU ${(m.cpuMs / m.requests).toFixed(3)} ms a request; ${n} statements (${per(n)} a request) took ${(us / 1000).toFixed(0)} ms of wall time, ${(us / m.requests).toFixed(0)} µs a request.`,
    "",
    "| statement | runs | a request | µs each | µs a request |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map(
      ([sql, t]) =>
        `| \`${sql.replace(/\|/g, "\\|")}\` | ${t.n} | ${per(t.n)} | ${(t.us / t.n).toFixed(1)} | ${(t.us / m.requests).toFixed(1)} |`,
    ),
    "",
  ];
}

export async function run(): Promise<string> {
  const SITES = Number(process.env["BENCH_SITES"] ?? "200");
  const PER = Number(process.env["BENCH_SOURCES_PER_SITE"] ?? "10");
  const probe = new Probe();
  const { child, origins } = await startSites(SITES);
  const data = mkdtempSync(join(tmpdir(), "nor-bench-statements-"));
  try {
    const { catalog } = writeFeedCatalog(data, origins, PER);
    const args = (store: string, night: string) => [
      ...["--catalog", catalog, "--data", join(data, store)],
      ...["--allow-private-addresses", "--gap-ms", "0", "--night", night],
    ];
    // V8 compiles the engine on a first pair of nights; the measured pair runs warm.
    await norNight(args("warm-up", "2026-11-05"));
    await norNight(args("warm-up", "2026-11-06"));
    const n1 = await measured(probe, SITES * (PER + 1), () =>
      norNight(args("store", "2026-11-05")),
    );
    const n2 = await measured(probe, SITES * PER, () => norNight(args("store", "2026-11-06")));
    // Night 3: the sites ignore validators and send every feed again whole, the same page.
    await conditional(child, false);
    let n3: Measured;
    try {
      await norNight(args("warm-up", "2026-11-07"));
      n3 = await measured(probe, SITES * PER, () => norNight(args("store", "2026-11-07")));
    } finally {
      await conditional(child, true);
    }
    return [
      "## Where a warm night's SQL time goes, statement by statement",
      "",
      `${SITES} loopback sites × ${PER} RSS sources, gap 0, a real \`nor night\` in this process, warm (after a first pair of nights on another store). Wall time of each statement where better-sqlite3 runs it; a COMMIT's includes its WAL writes and its fsync.`,
      "",
      ...table("night 1 (robots.txt + every feed, new)", n1, 25),
      ...table("night 2 (every feed, 304)", n2, 20),
      ...table(
        "night 3 (every feed again, 200, the same page: the sites ignore validators)",
        n3,
        20,
      ),
    ].join("\n");
  } finally {
    probe.remove();
    child.disconnect();
    rmSync(data, { recursive: true, force: true });
  }
}
