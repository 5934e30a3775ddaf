import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRobotsFile } from "../../src/cli/commands/robots.js";
import type { AttemptResult } from "../../src/net/pipeline.js";
import { checkUrl } from "../../src/net/redirects.js";
import { answer, ROBOTS_READ_LIMIT } from "../../src/net/robots-answer.js";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { robotsVerdict } from "../../src/policy/robots/index.js";

/**
 * P16–P18: `nor robots check` and the night must reach the same verdict on the same bytes.
 * Table tests run every row through both paths with these helpers.
 */
export interface Reading {
  verdict: "allowed" | "disallowed";
  crawlDelaySeconds?: number;
}

const encoder = new TextEncoder();

/** A robots.txt file as a server sends it or a person saves it: text is written as UTF-8. */
export function fileBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? encoder.encode(body) : body;
}

/**
 * The night's path: the gate turns a 200 answer into the entry it caches (the fetcher reads a
 * robots.txt body one byte past the limit, as here), then the fetcher parses the stored text.
 */
export function nightReading(
  body: string | Uint8Array,
  url: string,
  agent = DEFAULT_USER_AGENT,
): Reading {
  const bytes = fileBytes(body);
  const read =
    bytes.length > ROBOTS_READ_LIMIT
      ? { kind: "too-large" as const, body: bytes.slice(0, ROBOTS_READ_LIMIT), bytes: bytes.length }
      : { kind: "complete" as const, body: bytes, bytes: bytes.length };
  const attempt: AttemptResult = {
    kind: "response",
    status: 200,
    headers: { "content-type": "text/plain" },
    setCookies: [],
    read,
    startedAt: 0,
    endedAt: 0,
  };
  const entry = answer(attempt, 0);
  if (entry.state !== "rules") throw new Error(`the gate did not keep rules: ${entry.state}`);
  // What the fetcher does with a cached entry (the gate's toResult, then robotsVerdict), for the
  // URL in the one normal form a night sends and judges (its first step, url-check).
  const checked = checkUrl(url);
  if (!checked.ok) throw new Error(`a night never asks for ${url}: ${checked.reason}`);
  const v = robotsVerdict({ state: "rules", body: entry.body ?? "" }, checked.url.href, agent);
  if (v.verdict === "unknown") throw new Error(`no verdict for ${url}: ${v.reason}`);
  return v.crawlDelaySeconds === undefined
    ? { verdict: v.verdict }
    : { verdict: v.verdict, crawlDelaySeconds: v.crawlDelaySeconds };
}

/** The CLI's path: `nor robots check FILE URL --agent AGENT` on the same bytes. */
export async function cliReading(
  body: string | Uint8Array,
  url: string,
  agent = DEFAULT_USER_AGENT,
): Promise<Reading> {
  const dir = mkdtempSync(join(tmpdir(), "nor-robots-paths-"));
  try {
    const file = join(dir, "robots.txt");
    writeFileSync(file, fileBytes(body));
    const out = await checkRobotsFile(file, url, agent);
    // The verdict, its crawl-delay, and for a file over the limit the note that says so.
    const m =
      /^(allowed|disallowed)\n(?:crawl-delay: (\S+)\n)?(?:note: [^\n]+ are read \(RFC 9309 §2\.5\)[^\n]*\n)?$/.exec(
        out,
      );
    if (m === null)
      throw new Error(`unexpected output of nor robots check: ${JSON.stringify(out)}`);
    const verdict = m[1] as Reading["verdict"];
    return m[2] === undefined ? { verdict } : { verdict, crawlDelaySeconds: Number(m[2]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both readings of one file for one URL, to compare with one expectation. */
export async function bothReadings(
  body: string | Uint8Array,
  url: string,
  agent = DEFAULT_USER_AGENT,
): Promise<{ cli: Reading; night: Reading }> {
  return { cli: await cliReading(body, url, agent), night: nightReading(body, url, agent) };
}

/** Shorthand: both paths' verdicts, as `{ cli, night }` booleans (true = allowed). */
export async function allowedOnBothPaths(
  body: string | Uint8Array,
  url: string,
  agent = DEFAULT_USER_AGENT,
): Promise<{ cli: boolean; night: boolean }> {
  const r = await bothReadings(body, url, agent);
  return { cli: r.cli.verdict === "allowed", night: r.night.verdict === "allowed" };
}
