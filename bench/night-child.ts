/**
 * `node night-child.js ARG…`: `nor night ARG…` (the CLI's own main) alone in this process, for
 * bench/rss.ts, so the process's peak resident set is the command's. Memory is sampled every
 * 10 ms and attributed to the phase the night's log lines say it is in: "open + import"
 * until the "night start" line (the store opened, the catalog read and imported), "sources"
 * until "night done", then "close". Prints one JSON line on stdout when the command ends:
 * its exit code, wall and CPU time, the kernel's peak RSS (process.resourceUsage().maxRSS), the
 * file-backed part of the RSS at the end (Linux), the largest size of each V8 heap space, and per phase the
 * largest sample (RSS, heap used, heap committed, external + array buffers).
 * `BENCH_HEAP_SNAPSHOT_AT=N` also writes a V8 heap snapshot (in the working directory) once
 * N sources are done, to see where the memory goes.
 */
import { readFileSync } from "node:fs";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import type { main as Main } from "../src/cli/main.js";
import { cliModule } from "../src/joined.js";

/**
 * The engine joined into a few files, as bin/nor.js runs it, where bundleVendor (rss.ts) made it
 * beside this build (src/engine/, scripts/bundle-engine.mjs) and it is up to date with it; else
 * the compiled modules (src/joined.ts decides, as for bin/nor.js).
 */
const { main } = (await import(cliModule(new URL("../src/", import.meta.url)).url.href)) as {
  main: typeof Main;
};

const snapshotAt = Number(process.env["BENCH_HEAP_SNAPSHOT_AT"] ?? "0");

interface Sample {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
const sample = (): Sample => {
  const m = process.memoryUsage();
  return {
    rssMb: mb(m.rss),
    heapUsedMb: mb(m.heapUsed),
    heapTotalMb: mb(m.heapTotal),
    externalMb: mb(m.external + m.arrayBuffers),
  };
};

let phase = "open + import";
const peaks = new Map<string, Sample>();
const note = () => {
  const s = sample();
  const p = peaks.get(phase);
  if (!p) {
    peaks.set(phase, s);
    return;
  }
  p.rssMb = Math.max(p.rssMb, s.rssMb);
  p.heapUsedMb = Math.max(p.heapUsedMb, s.heapUsedMb);
  p.heapTotalMb = Math.max(p.heapTotalMb, s.heapTotalMb);
  p.externalMb = Math.max(p.externalMb, s.externalMb);
};
const spaces = new Map<string, number>();
const noteSpaces = () => {
  for (const s of getHeapSpaceStatistics())
    spaces.set(s.space_name, Math.max(spaces.get(s.space_name) ?? 0, mb(s.space_size)));
};
const timer = setInterval(() => {
  note();
  noteSpaces();
}, 10);
timer.unref();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
let pending = "";
// The command's output is taken by replacing the process's own streams' write, not by handing
// `main` streams of its own: `main(argv, streams)` runs the command inside an
// AsyncLocalStorage (src/cli/io.ts), which on Node 20 turns on promise hooks for the whole
// process, and `nor start` runs a night without them (bin/nor.js calls `main(argv)`).
const errWrite = process.stderr.write.bind(process.stderr);
const outWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = ((chunk: string | Uint8Array) => {
  pending += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    const next = line.includes('"msg":"night start"')
      ? "sources"
      : line.includes('"msg":"night done"')
        ? "close"
        : phase;
    if (line.startsWith("nor:")) errWrite(`${line}\n`);
    if (snapshotAt > 0 && line.includes(`"done":${snapshotAt},`))
      errWrite(`heap snapshot: ${writeHeapSnapshot()}\n`);
    if (next !== phase) {
      note();
      phase = next;
    }
  }
  return true;
}) as typeof process.stderr.write;
let code: number;
try {
  code = await main(["node", "nor", "night", ...process.argv.slice(2)]);
} finally {
  process.stdout.write = outWrite;
  process.stderr.write = errWrite;
}
note();
clearInterval(timer);
/** Linux: the resident pages backed by files (node's binary, its libraries), MB, at the end. */
function rssFileMb(): number | undefined {
  try {
    const m = /^RssFile:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? mb(Number(m[1]) * 1024) : undefined;
  } catch {
    return undefined;
  }
}
process.stdout.write(
  `${JSON.stringify({
    code,
    wallMs: Math.round(performance.now() - t0),
    cpuMs: Math.round(((c) => (c.user + c.system) / 1000)(process.cpuUsage(cpu0))),
    maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
    rssFileMb: rssFileMb(),
    phases: Object.fromEntries(peaks),
    spaces: Object.fromEntries(spaces),
  })}\n`,
);
