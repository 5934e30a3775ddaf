/**
 * Two builds of the engine, side by side: `BENCH_AB="DIR_A DIR_B" npm run bench -- ab`, where
 * each DIR holds a `dist-bench/` compiled from one version (`npx tsc -p tsconfig.bench.json
 * --outDir DIR/dist-bench`, with DIR/node_modules a link to the project's). On this shared
 * machine the speed of a whole run moves by tens of percent from one minute to the next, the
 * baselines' too, so a change of a few percent cannot be seen by running the loopback bench once
 * for each version. Here both versions run the same nights in turn in one process against one
 * set of sites (bench/ab-child.ts): the drift falls on both.
 *
 * Twice, in two processes: A imported first, then B first. The build a process imports first
 * measured a few percent slower than the other in such runs, with the same code in both
 * (docs/benchmarks.md, "Both ways round, and what is left to take"), so one order alone would
 * credit B, or A, with that. The ratio given is over the nights of both processes.
 *
 * Each DIR/node_modules must hold copies of its own of fast-xml-parser,
 * path-expression-matcher and feedsmith (the rest may be links to the project's packages): the feed reader
 * patches path-expression-matcher's ExpressionSet once a process (src/sources/extract/
 * feed-stop-nodes.ts), and two builds sharing one copy undo each other's patch, which made the
 * build imported first read every feed the slow way (45% more CPU a first night, with the same
 * code in both builds: docs/benchmarks.md, "Two builds in one process, and one patch"); and a
 * linked feedsmith imports the project's fast-xml-parser (node follows the link), which neither
 * build patches, so both read every feed the slow way ("The page path, counted apart"):
 *
 *     mkdir DIR/node_modules && for p in node_modules/* node_modules/.bin; do
 *       case ${p##*\/} in fast-xml-parser|path-expression-matcher|feedsmith) cp -r "$p" DIR/node_modules/;;
 *       *) ln -s "$PWD/$p" DIR/node_modules/;; esac; done
 *
 * ab-child refuses two builds that share one copy, and a build whose feedsmith is not its own.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { lastJsonLine } from "./child-json.js";

/** One process's nights: CPU ms a night of each build, in the order given. */
function half(first: string, second: string): Promise<[number[], number[]]> {
  const child = spawn(
    process.execPath,
    ["--expose-gc", join(import.meta.dirname, "ab-child.js"), first, second],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return lastJsonLine<{ cpuMs: [number[], number[]] }>(child, "ab-child").then((r) => r.cpuMs);
}

/** The middle value; the mean of the two middle ones for an even count. */
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const list = (xs: readonly number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(", ");

export async function run(): Promise<string> {
  const dirs = (process.env["BENCH_AB"] ?? "").split(/\s+/).filter(Boolean);
  if (dirs.length !== 2) {
    return '## Two builds side by side\n\nSkipped: set `BENCH_AB="DIR_A DIR_B"` (bench/ab.ts says how).';
  }
  const [dirA, dirB] = dirs as [string, string];
  const [a1, b1] = await half(dirA, dirB);
  const [b2, a2] = await half(dirB, dirA);
  const r1 = a1.map((x, i) => (b1[i] as number) / x);
  const r2 = a2.map((x, i) => (b2[i] as number) / x);
  return [
    `## Two builds side by side (nights of ${process.env["BENCH_AB_FIRST"] === "1" ? "a fresh store: every feed new" : process.env["BENCH_AB_WHOLE"] === "1" ? "feeds sent again whole, the same page" : "304s"}, CPU ms a night)`,
    "",
    `A: ${dirA}; B: ${dirB}. ${a1.length} nights each in each process, alternating which goes first.`,
    "",
    "| process | A | B | B ÷ A night by night | median |",
    "| --- | --- | --- | --- | --- |",
    `| A imported first | ${list(a1)} | ${list(b1)} | ${list(r1, 3)} | ${median(r1).toFixed(3)} |`,
    `| B imported first | ${list(a2)} | ${list(b2)} | ${list(r2, 3)} | ${median(r2).toFixed(3)} |`,
    "",
    `B ÷ A over both: median **${median([...r1, ...r2]).toFixed(3)}** (A first ${median(r1).toFixed(3)}, B first ${median(r2).toFixed(3)}).`,
  ].join("\n");
}
