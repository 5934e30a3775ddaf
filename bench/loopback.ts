/**
 * The engine end to end: a REAL `nor night` (the CLI's own code, in this process: catalog
 * import, the SQL journal, the real fetcher over undici, the WARC archive, records and
 * outcomes in SQLite) against loopback sites served by a child process (bench/loopback-sites.ts),
 * so this process's CPU (process.cpuUsage) is the engine's alone. The gap is shortened to 0,
 * which P10 allows only on loopback with --allow-private-addresses; every other floor holds.
 *
 * In the same run, the same requests made
 * - by bare undici (one keep-alive connection per site, the same number of lanes at once), and
 * - by undici plus one durable SQLite row per request (WAL, synchronous=FULL: an fsync per
 *   commit), the durable floor (src/store/durable-floor.ts).
 * Baselines run before and after the engine, and the better of each pair is the floor used
 * (the machine is shared: drift shows as the gap between the two).
 *
 * Night 1: robots.txt + every feed, all new (200s, archived, records stored). Night 2: every
 * feed asked with its validators, 304, counted from the archive's index (P8, P12). Night 3:
 * the sites ignore validators (as many do) and send every feed again in full, the same page:
 * a revisit record archived, the records counted from the page's last full read, not read
 * again.
 * `BENCH_SITES` (default 200) and `BENCH_SOURCES_PER_SITE` (default 10) size it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent } from "undici";
import { main } from "../src/cli/main.js";
import { DEFAULT_CONCURRENCY } from "../src/policy/constants.js";
import { openDurableFloor } from "../src/store/durable-floor.js";
import { bundleVendor, nightChild, nodeOptionsText } from "./rss.js";

const UA = "public-records-check/0.1 (+mailto:frankie@outpostagencies.com)";

export interface Req {
  url: string;
  headers: Record<string, string>;
}

interface Cost {
  requests: number;
  cpuUs: number;
  wallMs: number;
}

export async function startSites(n: number): Promise<{ child: ChildProcess; origins: string[] }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "loopback-sites.js"), `${n}`], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`loopback sites exited (${code})`)));
  });
  return { child, origins: (JSON.parse(first) as { origins: string[] }).origins };
}

/** Whether the sites answer a matching If-None-Match with 304 (loopback-sites.ts "no-304"). */
export function conditional(child: ChildProcess, on: boolean): Promise<void> {
  return new Promise((resolve) => {
    child.once("message", () => resolve());
    child.send(on ? "304" : "no-304");
  });
}

function served(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve((m as { requests: number }).requests));
    child.send("count");
  });
}

/** `lanes` workers, each taking the next site and making its requests one after another. */
async function runLanes(
  sites: readonly Req[][],
  lanes: number,
  each: (r: Req, agent: Agent) => Promise<void>,
): Promise<void> {
  const agent = new Agent({ connections: 1 });
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= sites.length) return;
      for (const r of sites[i] as Req[]) await each(r, agent);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, sites.length) }, worker));
  await agent.close();
}

async function measure(child: ChildProcess, fn: () => Promise<void>): Promise<Cost> {
  const before = await served(child);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const requests = (await served(child)) - before;
  return { requests, cpuUs: cpu.user + cpu.system, wallMs };
}

export async function bareUndici(r: Req, agent: Agent): Promise<{ status: number; bytes: number }> {
  const res = await agent.request({
    origin: new URL(r.url).origin,
    path: new URL(r.url).pathname,
    method: "GET",
    headers: r.headers,
  });
  const body = new Uint8Array(await res.body.arrayBuffer());
  return { status: res.statusCode, bytes: body.length };
}

/** What a night said of its durability window (P8, P27): ms from last byte to durable row. */
export interface DurableMs {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * `nor night` in this process; what it writes to stderr (a JSON line per source) is dropped,
 * but for its end summary's durability window.
 */
export async function norNight(args: string[]): Promise<DurableMs | undefined> {
  const err = process.stderr.write.bind(process.stderr);
  let durable: DurableMs | undefined;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    if (text.includes('"night done"')) {
      for (const line of text.split("\n")) {
        if (!line.includes('"night done"')) continue;
        const rec = JSON.parse(line) as { durableMs?: DurableMs };
        durable = rec.durableMs;
      }
    }
    return true;
  }) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main(["node", "nor", "night", ...args]);
  } finally {
    process.stderr.write = err;
  }
  if (code !== 0) throw new Error(`nor night exited ${code}`);
  return durable;
}

/** `nor catalog import CATALOG --data DATA` in this process (its output dropped). */
async function importCatalogCli(catalog: string, data: string): Promise<void> {
  const out = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let code: number;
  try {
    code = await main(["node", "nor", "catalog", "import", catalog, "--data", data]);
  } finally {
    process.stdout.write = out;
  }
  if (code !== 0) throw new Error(`nor catalog import exited ${code}`);
}

/** `p50 / p99 / longest` of a night's durability window, for a table cell. */
export function durableText(d: DurableMs | undefined): string {
  return d ? `${d.p50} / ${d.p99} / ${d.max}` : "n/a";
}

/**
 * The catalog of `per` RSS sources on each origin, written to DATA/catalog.yaml (one
 * government), with the requests a night makes of each site: night 1 robots.txt and every
 * feed, night 2 every feed with its validators.
 */
export function writeFeedCatalog(
  data: string,
  origins: readonly string[],
  per: number,
): { catalog: string; night1: Req[][]; night2: Req[][] } {
  const catalog = join(data, "catalog.yaml");
  const lines = [
    "governments:",
    "  - { id: village-of-bench, name: Village of Bench, kind: village, county: Franklin }",
    "sources:",
  ];
  const night1: Req[][] = [];
  const night2: Req[][] = [];
  origins.forEach((origin, s) => {
    const first: Req[] = [{ url: `${origin}/robots.txt`, headers: { "user-agent": UA } }];
    const second: Req[] = [];
    for (let j = 0; j < per; j++) {
      const url = `${origin}/feed/${j}.rss`;
      lines.push(
        `  - { id: s${s}-f${j}, government: village-of-bench, records: agendas, access: feed, url: "${url}" }`,
      );
      first.push({ url, headers: { "user-agent": UA } });
      second.push({ url, headers: { "user-agent": UA, "if-none-match": `"v1-${j}"` } });
    }
    night1.push(first);
    night2.push(second);
  });
  writeFileSync(catalog, `${lines.join("\n")}\n`);
  return { catalog, night1, night2 };
}

const perReq = (c: Cost) => c.cpuUs / Math.max(1, c.requests);
const ms = (us: number) => (us / 1000).toFixed(3);

export async function run(): Promise<string> {
  const SITES = Number(process.env["BENCH_SITES"] ?? "200");
  const PER = Number(process.env["BENCH_SOURCES_PER_SITE"] ?? "10");
  const { child, origins } = await startSites(SITES);
  const data = mkdtempSync(join(tmpdir(), "nor-bench-loopback-"));
  try {
    const { catalog, night1, night2 } = writeFeedCatalog(data, origins, PER);
    const lanes = DEFAULT_CONCURRENCY;

    const bare = (reqs: Req[][]) => () =>
      runLanes(reqs, lanes, async (r, a) => void (await bareUndici(r, a)));
    const floorDir = (k: string) => mkdtempSync(join(data, `floor-${k}-`));
    const durable = (reqs: Req[][], k: string) => async () => {
      const floor = await openDurableFloor(floorDir(k));
      try {
        await runLanes(reqs, lanes, async (r, a) => {
          const startedAt = Date.now();
          const { status, bytes } = await bareUndici(r, a);
          floor.insert({
            startedAt,
            endedAt: Date.now(),
            url: r.url,
            status,
            bytes,
            site: new URL(r.url).host,
          });
        });
      } finally {
        floor.close();
      }
    };
    const nightArgs = (store: string) => [
      ...["--catalog", catalog, "--data", join(data, store)],
      ...["--allow-private-addresses", "--gap-ms", "0"],
    ];
    const common = nightArgs("store");

    // Warm-up: JIT and connections for the baselines (not counted).
    await bare(night1)();
    const before = {
      bare1: await measure(child, bare(night1)),
      floor1: await measure(child, durable(night1, "a1")),
      bare2: await measure(child, bare(night2)),
      floor2: await measure(child, durable(night2, "a2")),
    };
    const window: (DurableMs | undefined)[] = [];
    const engine1 = await measure(child, async () => {
      window[1] = await norNight([...common, "--night", "2026-11-05"]);
    });
    const engine2 = await measure(child, async () => {
      window[2] = await norNight([...common, "--night", "2026-11-06"]);
    });
    // The same two nights again on a fresh store: the baselines are measured warm (after a
    // warm-up run), and so, here, is the engine; the first pair paid for compiling it.
    const again = nightArgs("store-warm");
    const warm1 = await measure(
      child,
      async () => void (await norNight([...again, "--night", "2026-11-05"])),
    );
    const warm2 = await measure(
      child,
      async () => void (await norNight([...again, "--night", "2026-11-06"])),
    );
    // Night 1 as `nor start` runs a store's first night: the catalog imported before (`nor
    // start` imports it as it starts, then the night finds the store holding exactly its files:
    // the stamp), so the night reads no YAML and imports nothing. The import is not counted.
    await importCatalogCli(catalog, join(data, "store-imported"));
    const imported1 = await measure(
      child,
      async () => void (await norNight([...nightArgs("store-imported"), "--night", "2026-11-05"])),
    );
    // As a real night runs: `nor night` in a process of its own, started with the options
    // `nor start` gives it (NIGHT_NODE_OPTIONS: 4 MB semi-spaces), kysely bundled as
    // `npm run build` leaves it, cold. Its CPU includes node's own start.
    const kysely = await bundleVendor();
    const own = async (night: string): Promise<Cost> => {
      const before = await served(child);
      const report = await nightChild([...nightArgs("store-own"), "--night", night]);
      const requests = (await served(child)) - before;
      return { requests, cpuUs: report.cpuMs * 1000, wallMs: report.wallMs };
    };
    const own1 = await own("2026-11-05");
    const own2 = await own("2026-11-06");
    const after = {
      bare1: await measure(child, bare(night1)),
      floor1: await measure(child, durable(night1, "b1")),
      bare2: await measure(child, bare(night2)),
      floor2: await measure(child, durable(night2, "b2")),
    };
    // Night 3 on the warm store: every feed answered in full again, the same page. Its
    // baselines make the same requests, answered the same way.
    await conditional(child, false);
    const third = {
      bare3: await measure(child, bare(night2)),
      floor3: await measure(child, durable(night2, "a3")),
    };
    const warm3 = await measure(
      child,
      async () => void (await norNight([...again, "--night", "2026-11-07"])),
    );
    const thirdAfter = {
      bare3: await measure(child, bare(night2)),
      floor3: await measure(child, durable(night2, "b3")),
    };
    await conditional(child, true);
    const best = (a: Cost, b: Cost) => (perReq(a) <= perReq(b) ? a : b);
    const row = (what: string, c: Cost, floor: Cost, bareC: Cost) =>
      `| ${what} | ${c.requests} | ${ms(perReq(c))} ms | ${(c.requests / (c.wallMs / 1000)).toFixed(0)} | ${(perReq(c) / perReq(bareC)).toFixed(1)}× | **${(perReq(c) / perReq(floor)).toFixed(2)}×** |`;
    const rows: string[] = [];
    for (const [n, eng, warm, ownN] of [
      [1, engine1, warm1, own1],
      [2, engine2, warm2, own2],
    ] as const) {
      const b = best(before[`bare${n}`], after[`bare${n}`]);
      const f = best(before[`floor${n}`], after[`floor${n}`]);
      const label =
        n === 1 ? "night 1 (robots.txt + every feed, 200)" : "night 2 (every feed, 304)";
      rows.push(
        `| **${label}** | | | | | |`,
        row("bare undici, same requests", b, f, b),
        row("undici + 1 durable SQLite row each (floor)", f, f, b),
        row("`nor night` (journal, archive, records)", eng, f, b),
        row("`nor night` again, warm (the same night, a fresh store)", warm, f, b),
        ...(n === 1
          ? [
              row(
                "`nor night`, warm, the catalog imported before (as under `nor start`)",
                imported1,
                f,
                b,
              ),
            ]
          : []),
        row("`nor night` in its own process, as `nor start` runs it (cold)", ownN, f, b),
      );
    }
    {
      const b = best(third.bare3, thirdAfter.bare3);
      const f = best(third.floor3, thirdAfter.floor3);
      rows.push(
        "| **night 3 (every feed again, 200, the same page: a site that ignores validators)** | | | | | |",
        row("bare undici, same requests", b, f, b),
        row("undici + 1 durable SQLite row each (floor)", f, f, b),
        row("`nor night`, warm (the warm store's third night)", warm3, f, b),
      );
    }
    const drift = (a: Cost, b: Cost) => `${ms(perReq(a))} / ${ms(perReq(b))}`;
    return [
      "## The engine end to end (a real `nor night` over loopback)",
      "",
      `${SITES} loopback sites × ${PER} RSS sources (${SITES * PER} sources), ${lanes} lanes at once, gap 0`,
      "(loopback only), SQLite store, WARC archive, in this process; the sites in a child process.",
      "CPU per request = this process's CPU (user + system) / requests the sites saw.",
      "",
      "| what | requests | CPU per request | requests/s (wall) | / bare undici | / durable floor |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      `Baselines before / after the engine (CPU ms per request), the lower one used: bare night 1 ${drift(before.bare1, after.bare1)}, floor night 1 ${drift(before.floor1, after.floor1)}, bare night 2 ${drift(before.bare2, after.bare2)}, floor night 2 ${drift(before.floor2, after.floor2)}, bare night 3 ${drift(third.bare3, thirdAfter.bare3)}, floor night 3 ${drift(third.floor3, thirdAfter.floor3)}.`,
      `From an answer's last byte to its durable journal row (P8, P27; ms, p50 / p99 / longest, as \`nor night\` reports it): night 1 ${durableText(window[1])}, night 2 ${durableText(window[2])}.`,
      `The engine's CPU includes the whole command: opening the store, the catalog import (YAML, ${SITES * PER} sources), planning, and a JSON log line per source. The first pair of nights also pays for V8 compiling the engine; the warm pair runs the same two nights on a fresh store right after, as the baselines run after their warm-up. The last pair runs as a real night does: a process of its own (bench/night-child.ts), started with \`nor start\`'s node options (${nodeOptionsText()}) and environment (without this machine's NODE_EXTRA_CA_CERTS: bench/rss.ts), ${kysely}, cold; its CPU includes node's start.`,
    ].join("\n");
  } finally {
    child.disconnect();
    rmSync(data, { recursive: true, force: true });
  }
}
