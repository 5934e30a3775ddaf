/**
 * docs/benchmarks.md "A night's memory": the peak resident set of a whole REAL `nor night` of 20,000
 * sources over loopback (bench/night-child.ts: the CLI's main alone in a child process, so
 * its peak is the command's), catalog import included. The sites are bench/loopback-sites.ts
 * in another process; the gap is 0 (loopback only, as in bench/loopback.ts), the default
 * lanes. Night 1: robots.txt + every feed, all new (records stored, archived). Night 2: every
 * feed asked again, 304, the catalog imported again unchanged. For scale, the same command on
 * a catalog of one source. `BENCH_SITES` (default 2000) × `BENCH_SOURCES_PER_SITE` (10).
 * kysely is loaded as the one bundled module a real night loads (bundleVendor below);
 * `BENCH_KYSELY_BUNDLE=0` loads the package's modules instead, as this bench did before.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { NIGHT_NODE_OPTIONS, nightEnv } from "../src/cli/night-process.js";
import { DEFAULT_CONCURRENCY } from "../src/policy/constants.js";
import { lastJsonLine } from "./child-json.js";
import { startSites, writeFeedCatalog } from "./loopback.js";

interface Peak {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

interface ChildReport {
  code: number;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  rssFileMb?: number;
  spaces: Record<string, number>;
  phases: Record<string, Peak>;
}

/**
 * node's options for the night's process: those `nor start` starts the night with (and
 * docs/operations.md's timer), unless `BENCH_NIGHT_NODE_OPTIONS` names others (space-separated;
 * empty for none), to compare.
 */
const nodeOptions = (): string[] => {
  const asked = process.env["BENCH_NIGHT_NODE_OPTIONS"];
  return asked === undefined ? [...NIGHT_NODE_OPTIONS] : asked.split(/\s+/).filter(Boolean);
};

/** The night's node options as a table's note says them. */
export const nodeOptionsText = (): string => nodeOptions().join(" ") || "none";

export function nightChild(args: string[]): Promise<ChildReport> {
  const script = join(import.meta.dirname, "night-child.js");
  // With `nor start`'s environment too (malloc's arenas; MALLOC_ARENA_MAX set here is kept),
  // but for NODE_EXTRA_CA_CERTS: a file of certificates node reads and parses as it starts,
  // before any of the night's code, set on the machines these benchmarks ran on for their own
  // network (about 60 ms of CPU at each start there, docs/benchmarks.md "Readers loaded when
  // first read"), not by `nor` nor by an operator's machine as a rule. BENCH_KEEP_EXTRA_CA=1
  // keeps it.
  const { NODE_EXTRA_CA_CERTS: _extraCa, ...env } = nightEnv();
  const child = spawn(process.execPath, [...nodeOptions(), script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env["BENCH_KEEP_EXTRA_CA"] === "1" ? nightEnv() : env,
  });
  return lastJsonLine<ChildReport>(child, "night child").then((report) => {
    if (report.code !== 0) throw new Error(`nor night exited ${report.code}`);
    return report;
  });
}

const PHASES = ["open + import", "sources", "close"] as const;
const cell = (p: Peak | undefined) =>
  p === undefined
    ? "–"
    : `${p.rssMb.toFixed(0)} / ${p.heapUsedMb.toFixed(0)} / ${p.heapTotalMb.toFixed(0)} / ${p.externalMb.toFixed(0)}`;

/**
 * kysely, feedsmith, yaml and zod as one bundled module each beside the bench's build of the
 * sources, as `npm run build` puts them beside dist/ (scripts/bundle-vendor.mjs itself, run with
 * the bench's directory): src/store/kysely.ts, src/sources/extract/feedsmith.ts, src/yaml.ts and
 * src/zod.ts load them when they are there, and a real `nor night` (bin/nor.js) does. Without kysely's the night would load the
 * package's 263 modules, about 15 MB more resident memory than the real night. Then the engine
 * joined into a few files (scripts/bundle-engine.mjs), which night-child.ts runs as bin/nor.js
 * runs dist/engine/.
 */
export async function bundleVendor(): Promise<string> {
  const src = join(import.meta.dirname, "..", "src");
  const out = join(src, "vendor");
  const done = "kysely, feedsmith, yaml and zod bundled, the engine joined";
  const scripts = join(import.meta.dirname, "..", "..", "scripts");
  // In a process of its own, as the catalog import below: a child's peak RSS as the kernel
  // counts it starts at its parent's RSS when it was spawned (exec keeps the larger of the two),
  // so this process stays small.
  // Made anew each run (under a second), not only when missing: a build from before yaml and
  // zod were bundled holds kysely's and feedsmith's alone, and one from before an `npm update`
  // bundles the versions it replaced; either would run other code than a real night.
  const script = join(scripts, "bundle-vendor.mjs");
  await inChild(
    `process.argv[2] = ${JSON.stringify(out)}; await import(${JSON.stringify(pathToFileURL(script).href)});`,
  );
  // The engine joined as bin/nor.js runs it (night-child.ts loads it), made anew each run: the
  // build beside it may have changed since.
  const engine = join(scripts, "bundle-engine.mjs");
  await inChild(
    `process.argv[2] = ${JSON.stringify(src)}; await import(${JSON.stringify(pathToFileURL(engine).href)});`,
  );
  return done;
}

/** ES module code run by node in a process of its own; rejects unless it exits 0. */
function inChild(code: string): Promise<void> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c) => (c === 0 ? resolve() : reject(new Error(`child exited ${c}`))));
  });
}

export async function run(): Promise<string> {
  // BENCH_KYSELY_BUNDLE=0: the packages' modules instead (as measured before 2026-12-03 15:40).
  let kysely =
    "kysely's 263 modules and feedsmith's 135, the engine not joined (BENCH_KYSELY_BUNDLE=0)";
  if (process.env["BENCH_KYSELY_BUNDLE"] === "0") {
    for (const d of ["vendor", "engine"]) {
      rmSync(join(import.meta.dirname, "..", "src", d), { recursive: true, force: true });
    }
  } else kysely = await bundleVendor();
  const SITES = Number(process.env["BENCH_SITES"] ?? "2000");
  const PER = Number(process.env["BENCH_SOURCES_PER_SITE"] ?? "10");
  const { child, origins } = await startSites(SITES);
  const data = mkdtempSync(join(tmpdir(), "nor-bench-rss-"));
  const small = mkdtempSync(join(tmpdir(), "nor-bench-rss-1-"));
  const pre = mkdtempSync(join(tmpdir(), "nor-bench-rss-pre-"));
  try {
    const { catalog } = writeFeedCatalog(data, origins, PER);
    const one = writeFeedCatalog(small, origins.slice(0, 1), 1).catalog;
    const args = (cat: string, dir: string, night: string) => [
      "--catalog",
      cat,
      "--data",
      join(dir, "store"),
      "--allow-private-addresses",
      "--gap-ms",
      "0",
      "--night",
      night,
    ];
    const rows: string[] = [];
    const load: number[] = [loadavg()[0] as number];
    const runs: [string, string[]][] = [
      ["one source (for scale)", args(one, small, "2026-11-05")],
      [`night 1: ${SITES * PER} sources, all new`, args(catalog, data, "2026-11-05")],
      [`night 2: ${SITES * PER} sources, 304`, args(catalog, data, "2026-11-06")],
    ];
    // BENCH_RSS_IMPORTED=1: also a first night whose catalog `nor catalog import` put in the
    // store before, as under `nor start`, which imports at its start
    // and starts each night on files it finds imported unchanged.
    const imported = process.env["BENCH_RSS_IMPORTED"] === "1";
    if (imported) {
      const cli = pathToFileURL(join(import.meta.dirname, "..", "src", "cli", "main.js")).href;
      const argv = ["node", "nor", "catalog", "import", catalog, "--data", join(pre, "store")];
      await inChild(
        `const { main } = await import(${JSON.stringify(cli)});
         const quiet = { write: () => true };
         process.exitCode = await main(${JSON.stringify(argv)}, { stdout: quiet, stderr: process.stderr, stdin: process.stdin });`,
      );
      runs.push([
        `night 1 after \`nor catalog import\`: ${SITES * PER} sources, all new`,
        args(catalog, pre, "2026-11-05"),
      ]);
    }
    let worst = 0;
    // A child's kernel peak starts at this process's RSS when spawned: said, to be seen small.
    let parentMb = 0;
    for (const [what, a] of runs) {
      parentMb = Math.max(parentMb, process.memoryUsage().rss / 1024 / 1024);
      const r = await nightChild(a);
      load.push(loadavg()[0] as number);
      if (a[1] === catalog) worst = Math.max(worst, r.maxRssMb);
      rows.push(
        `| ${what} | **${r.maxRssMb.toFixed(0)} MB** | ${r.rssFileMb?.toFixed(0) ?? "–"} MB | ${PHASES.map((p) => cell(r.phases[p])).join(" | ")} | ${(r.spaces["new_space"] ?? 0).toFixed(0)} / ${(r.spaces["old_space"] ?? 0).toFixed(0)} MB | ${(r.wallMs / 1000).toFixed(1)} s | ${(r.cpuMs / 1000).toFixed(1)} s |`,
      );
    }
    return [
      "## A night's memory (a real `nor night` of 20,000 sources over loopback)",
      "",
      `${SITES} loopback sites × ${PER} RSS sources (${SITES * PER} sources, one government), ${DEFAULT_CONCURRENCY} lanes, gap 0`,
      "(loopback only), SQLite store, WARC archive; `nor night` alone in a child process (the CLI's",
      `main) started as \`nor start\` starts it (node ${nodeOptions().join(" ") || "without options"}, MALLOC_ARENA_MAX=${nightEnv()["MALLOC_ARENA_MAX"]}; ${kysely}), the sites in another.`,
      "Peak RSS is the kernel's (process.resourceUsage().maxRSS); per",
      "phase, the largest of samples every 10 ms: RSS / heap used / heap committed / external and",
      'array buffers, MB. "open + import" ends at the night\'s start line (store opened, catalog',
      'read, validated and imported), "sources" at its summary.',
      "",
      "| night | peak RSS | of which file-backed (at the end) | open + import | sources | close | largest new / old space | wall | CPU |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      `Target ≤ 150 MB: ${worst <= 150 ? "met" : "**not met**"} (${worst.toFixed(0)} MB at most). Load average (1 min) before and after each: ${load.map((l) => l.toFixed(1)).join(" → ")}. The bench's own RSS when it started a night (a child's kernel peak starts there): ${parentMb.toFixed(0)} MB at most.`,
    ].join("\n");
  } finally {
    child.disconnect();
    rmSync(data, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
    rmSync(pre, { recursive: true, force: true });
  }
}
