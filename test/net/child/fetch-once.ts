/**
 * Runs in a child process (bundled by test/net/limits.test.ts): one fetch through the real
 * pipeline, then prints the outcome and this process's peak RSS, so a memory bound (P14)
 * is measured on the process that did the reading and nothing else.
 */
import { readFileSync } from "node:fs";
import { systemClock } from "../../../src/clock.js";
import { randomIds } from "../../../src/ids.js";
import { createFetcher } from "../../../src/net/fetcher.js";
import { memoryPorts } from "../../../src/net/memory-ports.js";

const url = process.argv[2];
if (!url) throw new Error("usage: fetch-once URL");
const ports = memoryPorts();
const fetcher = createFetcher({
  clock: systemClock,
  ids: randomIds,
  journal: ports.journal,
  gapMs: 0,
  robotsCache: {
    // robots.txt is not what this child measures: allow all, so the one request is the body.
    get: async (origin) => ({ origin, fetchedAt: Date.now(), state: "allow-all", status: 404 }),
    put: async () => {},
  },
  transportOptions: { allowPrivateAddresses: true },
});
const out = await fetcher.fetch({ url, purpose: "page" });
await fetcher.close();
const summary = { ...out, body: undefined, headers: undefined };
/**
 * Linux carries ru_maxrss across fork+exec (the forked copy of the parent counts), so
 * resourceUsage().maxRSS can report the parent's size; VmHWM is this process's own peak.
 */
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
process.stdout.write(
  `${JSON.stringify({
    outcome: summary,
    maxRssKiB: process.resourceUsage().maxRSS,
    vmHwmKiB: hwm === undefined ? null : Number(hwm),
    log: ports.log.entries,
  })}\n`,
);
