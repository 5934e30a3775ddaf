/**
 * `nor log` on a million rows (P27: "given a time and an address, the operator finds it in
 * seconds"). A SQLite store holding 1,000,000 attempts over ten nights on 5,000 sites, then
 * each question asked three ways, median of 5:
 * - `nor log … --jsonl` as an operator runs it: a fresh `node bin/nor.js` process (needs
 *   `npm run build`; skipped without dist/);
 * - the same command in this process (parse, open the store, query, print);
 * - the query alone (SqlRequestLog.query on an open store): the baseline, what the index gives.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../src/cli/main.js";
import type { RequestLogEntry } from "../src/net/types.js";
import { openStore } from "../src/store/db.js";
import { type RequestLogFilter, SqlRequestLog } from "../src/store/request-log.js";
import { parseTimeWindow } from "../src/store/time-args.js";

const ROWS = Number(process.env["BENCH_LOG_ROWS"] ?? "1000000");
const SITES = 5_000;
const ROOT = join(import.meta.dirname, "..", "..");

function row(i: number, from: number, step: number): RequestLogEntry {
  const site = i % 7 === 0 ? "example.gov" : `site-${i % SITES}.gov`;
  const startedAt = from + Math.floor(i * step);
  return {
    startedAt,
    endedAt: startedAt + 150,
    method: "GET",
    url: `https://www.${site}/agendas/${i}`,
    status: 200,
    outcome: "ok",
    bytes: 1234,
    site,
    origin: `https://www.${site}`,
    source: `src-${i % 20_000}`,
    purpose: i % 3 === 0 ? "robots" : "page",
    attempt: 1,
    night: new Date(startedAt).toISOString().slice(0, 10),
  };
}

async function median(n: number, fn: () => Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

async function inProcess(args: string[]): Promise<number> {
  let bytes = 0;
  const out = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((c: string | Uint8Array) => {
    bytes += c.length;
    return true;
  }) as typeof process.stdout.write;
  try {
    const code = await main(["node", "nor", "log", ...args]);
    if (code !== 0) throw new Error(`nor log exited ${code}`);
  } finally {
    process.stdout.write = out;
  }
  return bytes;
}

export async function run(): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), "nor-bench-log-"));
  try {
    const store = await openStore({ kind: "sqlite", dir: data });
    const log = new SqlRequestLog(store.db);
    // Ten nights from 2026-11-01 00:00 New York time (05:00 UTC).
    const from = Date.UTC(2026, 10, 1, 5);
    const step = (10 * 86_400_000) / ROWS;
    const fillStart = performance.now();
    for (let i = 0; i < ROWS; i += 50_000) {
      const batch: RequestLogEntry[] = [];
      for (let j = i; j < Math.min(ROWS, i + 50_000); j++) batch.push(row(j, from, step));
      await log.appendMany(batch);
    }
    const fillS = (performance.now() - fillStart) / 1000;
    const questions: [string, string[]][] = [
      [
        "a site owner's two minutes (P27)",
        ["--since", "2026-11-05 03:11", "--until", "2026-11-05 03:13", "--site", "example.gov"],
      ],
      [
        "one site, one whole night",
        ["--since", "2026-11-05 00:00", "--until", "2026-11-05 23:59", "--site", "site-17.gov"],
      ],
      ["one site, all ten nights", ["--site", "site-42.gov"]],
      [
        "a URL substring within one hour",
        [
          "--since",
          "2026-11-05 03:00",
          "--until",
          "2026-11-05 03:59",
          "--url-contains",
          "/agendas/4",
        ],
      ],
      ["a URL substring, no time window (every row read)", ["--url-contains", "/agendas/999999"]],
    ];
    const common = ["--data", data, "--jsonl"];
    const built = existsSync(join(ROOT, "dist", "cli", "main.js"));
    const rows: string[] = [];
    for (const [what, args] of questions) {
      const filter: RequestLogFilter = parseTimeWindow({
        ...(args.includes("--since") ? { since: args[args.indexOf("--since") + 1] as string } : {}),
        ...(args.includes("--until") ? { until: args[args.indexOf("--until") + 1] as string } : {}),
      });
      if (args.includes("--site")) filter.site = args[args.indexOf("--site") + 1] as string;
      if (args.includes("--url-contains"))
        filter.urlContains = args[args.indexOf("--url-contains") + 1] as string;
      const found = (await log.query(filter)).length;
      const query = await median(5, () => log.query(filter));
      const cmd = await median(5, () => inProcess([...args, ...common]));
      const spawned = built
        ? await median(5, async () => {
            const r = spawnSync(
              process.execPath,
              [join(ROOT, "bin", "nor.js"), "log", ...args, ...common],
              {
                cwd: ROOT,
                maxBuffer: 1 << 28,
              },
            );
            if (r.status !== 0) throw new Error(`nor log exited ${r.status}: ${r.stderr}`);
          })
        : undefined;
      rows.push(
        `| ${what} | ${found} | ${spawned === undefined ? "–" : `${spawned.toFixed(0)} ms`} | ${cmd.toFixed(0)} ms | ${query.toFixed(1)} ms |`,
      );
    }
    await store.close();
    return [
      "## `nor log` on a million rows",
      "",
      `${ROWS.toLocaleString("en-US")} attempts over ten nights on ${SITES.toLocaleString("en-US")} sites (example.gov every 7th), SQLite, written in ${fillS.toFixed(0)} s. Median of 5.`,
      "",
      "| question | attempts found | `node bin/nor.js log` (new process) | `nor log` in this process | the query alone |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "The new process's time is mostly Node's and the CLI's start (loading modules, opening the",
      "store and checking its migrations); the query alone is what the indexes on",
      "`request_log` give. A URL substring without a time window reads every row.",
    ].join("\n");
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
