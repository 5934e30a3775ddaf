/**
 * One half of `npm run bench -- ab` (bench/ab.ts): `node ab-child.js DIR_1 DIR_2`, the builds
 * imported in that order into this process, the same nights run by each in turn. Prints one JSON
 * line: `{"cpuMs": [[…DIR_1's nights], […DIR_2's nights]]}`.
 *
 * Each build gets a store of its own and its first two nights (new feeds, then 304s) unmeasured;
 * then `BENCH_AB_NIGHTS` (default 8) nights of 304s are measured, one date after another (a new
 * date fetches robots.txt again, as a new day does), alternating which build goes first. CPU is
 * this process's (user + system, every thread). 200 loopback sites × 10 feeds, gap 0, as
 * bench/loopback.ts. With `BENCH_AB_WHOLE=1` the measured nights are of feeds sent again whole
 * (the sites ignore validators: loopback-sites.ts "no-304"), the same page each night. The sites
 * are this bench's own (its loopback-sites.js), whichever builds are compared. With
 * `BENCH_AB_FIRST=1` each measured night is a first night of a fresh store (robots.txt and every
 * feed new: archived, read, its records written), as bench/loopback.ts's night 1 is.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { conditional, startSites } from "./loopback.js";

type Loopback = typeof import("./loopback.js");

const dirs = process.argv.slice(2);
if (dirs.length !== 2) throw new Error("ab-child: two build directories");
const nights = Number(process.env["BENCH_AB_NIGHTS"] ?? "8");
const whole = process.env["BENCH_AB_WHOLE"] === "1";
const fresh = process.env["BENCH_AB_FIRST"] === "1";
// Each build its own path-expression-matcher (bench/ab.ts says why and how).
const matchers = new Set(
  dirs.map((d) =>
    realpathSync(join(resolve(d), "node_modules", "path-expression-matcher", "package.json")),
  ),
);
if (matchers.size !== dirs.length)
  throw new Error(
    "ab-child: the builds share one copy of path-expression-matcher (bench/ab.ts: copy it and fast-xml-parser into each DIR/node_modules)",
  );
// And feedsmith, where a build reads feeds through the package (no bundle beside its build,
// src/vendor/feedsmith.js, which loopback.ts's bundleVendor makes): node finds a linked
// package's own imports from where the link points, so a linked feedsmith parses with the
// project's fast-xml-parser, not the build's copy that its feed-stop-nodes.ts patches, and
// every feed took the slow path in both builds (docs/benchmarks.md, "The page path, counted
// apart").
for (const d of dirs) {
  if (existsSync(join(resolve(d), "dist-bench", "src", "vendor", "feedsmith.js"))) continue;
  const feedsmith = realpathSync(join(resolve(d), "node_modules", "feedsmith", "package.json"));
  const parser = realpathSync(createRequire(feedsmith).resolve("fast-xml-parser"));
  const own = realpathSync(join(resolve(d), "node_modules", "fast-xml-parser"));
  if (!parser.startsWith(`${own}/`))
    throw new Error(
      `ab-child: ${d}'s feedsmith parses with ${parser}, not the build's own fast-xml-parser (bench/ab.ts: copy feedsmith into DIR/node_modules too)`,
    );
}
const builds: { name: string; m: Loopback; cpuMs: number[] }[] = [];
for (const [i, d] of dirs.entries()) {
  const url = pathToFileURL(join(resolve(d), "dist-bench", "bench", "loopback.js")).href;
  builds.push({ name: `b${i}`, m: (await import(url)) as Loopback, cpuMs: [] });
}
const first = builds[0] as (typeof builds)[number];
const { child, origins } = await startSites(200);
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
  if (whole) await conditional(child, false);
  for (let d = 0; d < nights; d++) {
    const night = new Date(Date.UTC(2026, 10, 7 + d)).toISOString().slice(0, 10);
    for (const b of d % 2 === 0 ? builds : [...builds].reverse()) {
      const c0 = process.cpuUsage();
      await b.m.norNight(fresh ? args(`${b.name}-first-${d}`, "2026-11-05") : args(b.name, night));
      const c = process.cpuUsage(c0);
      b.cpuMs.push((c.user + c.system) / 1000);
    }
  }
} finally {
  child.disconnect();
  rmSync(data, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ cpuMs: builds.map((b) => b.cpuMs) })}\n`);
