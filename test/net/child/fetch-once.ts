/**
 * Runs in a child process (bundled by test/net/limits.test.ts): one fetch through the real
 * pipeline, then prints the outcome and this process's peak RSS, so a memory bound (P14)
 * is measured on the process that did the reading and nothing else.
 */
import { systemClock } from "../../../src/clock.js";
import { createFetcher } from "../../../src/net/fetcher.js";
import { memoryPorts } from "../../../src/net/memory-ports.js";

const url = process.argv[2];
if (!url) throw new Error("usage: fetch-once URL");
const ports = memoryPorts();
const fetcher = createFetcher({
  clock: systemClock,
  ...ports,
  gapMs: 0,
  transportOptions: { allowPrivateAddresses: true },
});
const out = await fetcher.fetch({ url, purpose: "page" });
await fetcher.close();
const summary = { ...out, body: undefined, headers: undefined };
process.stdout.write(
  `${JSON.stringify({ outcome: summary, maxRssKiB: process.resourceUsage().maxRSS, log: ports.log.entries })}\n`,
);
