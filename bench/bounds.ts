/**
 * The timings the tests prove by other means (no test asserts a wall time: the machines are
 * shared). robots.txt of hostile shapes (P17; the tests check each is decided, a quadratic
 * parser or a backtracking matcher would never finish) against a TextDecoder pass over the same
 * bytes; the request-log search a site owner asks for (P27; the tests check its query plan) on
 * 100,000 attempts against a count over the whole table measured in the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { RequestLogEntry } from "../src/net/types.js";
import { DEFAULT_USER_AGENT } from "../src/policy/constants.js";
import { isAllowed, parseRobots, patternMatches, policyFor } from "../src/policy/robots/index.js";
import { openStore } from "../src/store/db.js";
import { SqlRequestLog } from "../src/store/request-log.js";

const ROUNDS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function timed(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function timedAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function robots(): string[] {
  const two = 2 * 1024 * 1024;
  const shapes: [string, string][] = [
    ["many rules", "User-agent: *\nDisallow: /a*b$\nAllow: /c\n".repeat(two / 36)],
    ["one long line", `Disallow: /${"a".repeat(two)}`],
    ["blanks with a key at the end", `User-agent: *${" ".repeat(two)}Disallow: /`],
    ["many keys without colons", "allow disallow ".repeat(two / 15)],
    ["a one-line file of many records", "User-agent: * Disallow: /x ".repeat(two / 27)],
    ["only line breaks", "\r\n\r".repeat(two / 3)],
    ["%-escapes and non-ASCII", `User-agent: *\nDisallow: /${"%e3ツ%".repeat(two / 8)}\n`],
  ];
  const rows = [
    "| robots.txt (2 MiB) | parse + verdict ms | TextDecoder ms | ratio |",
    "|---|---|---|---|",
  ];
  for (const [name, text] of shapes) {
    const bytes = new TextEncoder().encode(text);
    const parse: number[] = [];
    const decode: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      decode.push(timed(() => new TextDecoder().decode(bytes)));
      parse.push(timed(() => isAllowed(policyFor(parseRobots(bytes), DEFAULT_USER_AGENT), "/x/y")));
    }
    const p = median(parse);
    const d = median(decode);
    rows.push(`| ${name} | ${p.toFixed(1)} | ${d.toFixed(1)} | ${(p / d).toFixed(1)}× |`);
  }
  const path = `/${"a".repeat(100_000)}b`;
  const pats = ["/*a*a*a*a*a*a*a*a*a*a*$", "/*a*a*a*a*a*a*a*a*a*a$", "/*a*a*a*a*a*a*a*a*a*ab*c"];
  const wild = median(
    Array.from({ length: ROUNDS }, () => timed(() => pats.map((p) => patternMatches(p, path)))),
  );
  const scan = median(Array.from({ length: ROUNDS }, () => timed(() => path.indexOf("c"))));
  rows.push(
    "",
    `Three pathological wildcard patterns against a 100 KB path: ${wild.toFixed(2)} ms (one indexOf over the path: ${scan.toFixed(3)} ms).`,
  );
  return rows;
}

async function requestLog(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "nor-bench-bounds-"));
  const store = await openStore({ kind: "sqlite", dir });
  try {
    const log = new SqlRequestLog(store.db);
    const from = Date.UTC(2026, 10, 4, 5);
    const entries: RequestLogEntry[] = [];
    for (let i = 0; i < 100_000; i++) {
      const startedAt = from + i * 2_600;
      const site = i % 4 === 0 ? "example.gov" : `site-${i % 19}.gov`;
      entries.push({
        startedAt,
        endedAt: startedAt + 150,
        method: "GET",
        url: `https://${site}/page/${i}`,
        status: 200,
        outcome: "ok",
        bytes: 1234,
        site,
        origin: `https://${site}`,
        source: `${site}-agendas`,
        purpose: "page",
        attempt: 1,
      });
    }
    await log.appendMany(entries);
    const since = Date.UTC(2026, 10, 5, 8, 11);
    const until = Date.UTC(2026, 10, 5, 8, 14);
    const search: number[] = [];
    const whole: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      search.push(await timedAsync(() => log.query({ since, until, site: "example.gov" })));
      whole.push(await timedAsync(() => log.query({ urlContains: "no-such-url" })));
    }
    const s = median(search);
    const w = median(whole);
    return [
      "| request log (100,000 attempts, SQLite) | ms |",
      "|---|---|",
      `| one site, three minutes (the site owner's question) | ${s.toFixed(2)} |`,
      `| a filter no index serves (reads every row) | ${w.toFixed(2)} |`,
      "",
      `The site owner's question costs ${((100 * s) / w).toFixed(1)}% of a pass over the table.`,
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<string> {
  return [
    "## Bounds the tests prove without timing",
    "",
    ...robots(),
    "",
    ...(await requestLog()),
  ].join("\n");
}
