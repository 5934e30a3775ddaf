/**
 * Two builds of the engine, side by side in one process: `BENCH_AB="DIR_A DIR_B" npm run bench --
 * ab`, where each DIR holds a `dist-bench/` compiled from one version (`npx tsc -p
 * tsconfig.bench.json --outDir DIR/dist-bench`, with DIR/node_modules a link to the
 * project's). On this shared machine the speed of a whole run moves by tens of percent from one
 * minute to the next, the baselines' too, so a change of a few percent cannot be seen by running
 * the loopback bench once for each version. Here both versions run the same nights in turn, in
 * one process against one set of sites, alternating which goes first: the drift falls on both.
 *
 * Each version gets a store of its own and its first two nights (new feeds, then 304s) unmeasured;
 * then `BENCH_AB_NIGHTS` (default 8) nights of 304s are measured, one date after another (a new
 * date fetches robots.txt again, as a new day does). CPU is this process's (user + system, every
 * thread). 200 loopback sites × 10 feeds, gap 0, as bench/loopback.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

type Loopback = typeof import("./loopback.js");

export async function run(): Promise<string> {
  const dirs = (process.env["BENCH_AB"] ?? "").split(/\s+/).filter(Boolean);
  if (dirs.length !== 2) {
    return '## Two builds side by side\n\nSkipped: set `BENCH_AB="DIR_A DIR_B"` (bench/ab.ts says how).';
  }
  const nights = Number(process.env["BENCH_AB_NIGHTS"] ?? "8");
  const builds: { name: string; m: Loopback; cpuMs: number[] }[] = [];
  for (const [i, d] of dirs.entries()) {
    const url = pathToFileURL(join(resolve(d), "dist-bench", "bench", "loopback.js")).href;
    builds.push({ name: i === 0 ? "A" : "B", m: (await import(url)) as Loopback, cpuMs: [] });
  }
  const first = builds[0] as (typeof builds)[number];
  const { child, origins } = await first.m.startSites(200);
  const data = mkdtempSync(join(tmpdir(), "nor-bench-ab-"));
  try {
    const { catalog } = first.m.writeFeedCatalog(data, origins, 10);
    const args = (store: string, night: string) => [
      ...["--catalog", catalog, "--data", join(data, store)],
      ...["--allow-private-addresses", "--gap-ms", "0", "--night", night],
    ];
    for (const b of builds) {
      await b.m.norNight(args(b.name, "2026-11-05"));
      await b.m.norNight(args(b.name, "2026-11-06"));
    }
    for (let d = 0; d < nights; d++) {
      const night = new Date(Date.UTC(2026, 10, 7 + d)).toISOString().slice(0, 10);
      for (const b of d % 2 === 0 ? builds : [...builds].reverse()) {
        const c0 = process.cpuUsage();
        await b.m.norNight(args(b.name, night));
        const c = process.cpuUsage(c0);
        b.cpuMs.push((c.user + c.system) / 1000);
      }
    }
  } finally {
    child.disconnect();
    rmSync(data, { recursive: true, force: true });
  }
  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.floor(s.length / 2)] as number;
  };
  const [a, b] = builds as [(typeof builds)[number], (typeof builds)[number]];
  const ratios = a.cpuMs.map((x, i) => (b.cpuMs[i] as number) / x);
  return [
    "## Two builds side by side (nights of 304s, CPU ms a night)",
    "",
    `A: ${dirs[0]}; B: ${dirs[1]}. ${nights} nights each, alternating which goes first.`,
    "",
    "| build | each night | median |",
    "| --- | --- | --- |",
    `| A | ${a.cpuMs.map((x) => x.toFixed(0)).join(", ")} | ${median(a.cpuMs).toFixed(0)} |`,
    `| B | ${b.cpuMs.map((x) => x.toFixed(0)).join(", ")} | ${median(b.cpuMs).toFixed(0)} |`,
    "",
    `B ÷ A night by night: ${ratios.map((r) => r.toFixed(3)).join(", ")}; median **${median(ratios).toFixed(3)}**.`,
  ].join("\n");
}
