import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";

/**
 * Issue 13 (docs/benchmarks.md, "Fewer statements a source"): what a source's check asks the
 * store that decides nothing about sending rides on a statement the night runs anyway. A first
 * read's list read before (READS_BEFORE, with whether a record keeps a first id) is asked in its
 * claim's RETURNING; a 304's page read (PAGE_READ) at the source's turn, with sourceNow. Every
 * statement better-sqlite3 runs during two real nights is counted by its text: neither of those
 * runs alone, and each night's outcomes are what they were (records found, then known).
 */
const ETAG = '"v1"';
const FEEDS = 3;
const dir = mkdtempSync(join(tmpdir(), "nor-stmts-source-"));
let server: Server;
let catalog = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/robots.txt") return void res.writeHead(404).end();
    if (req.headers["if-none-match"] === ETAG) return void res.writeHead(304).end();
    const items = [1, 2, 3]
      .map(
        (i) =>
          `<item><title>Agenda ${i}</title><link>http://127.0.0.1${req.url}/a${i}</link><pubDate>Mon, 0${i} Nov 2026 10:00:00 GMT</pubDate></item>`,
      )
      .join("");
    res
      .writeHead(200, { "content-type": "application/rss+xml", etag: ETAG })
      .end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items}</channel></rss>`,
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const entries: Record<string, string> = {};
  for (let i = 0; i < FEEDS; i++)
    entries[`stmts-feed-${i}`] =
      `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed${i}.rss"`;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Stmts", entries);
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Every statement better-sqlite3 runs while `fn` does, by its text, with how often. */
async function counted(fn: () => Promise<void>): Promise<Map<string, number>> {
  const scratch = new Database(":memory:");
  const proto = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<string, Fn>;
  scratch.close();
  const runs = new Map<string, number>();
  const saved = new Map<string, Fn>();
  for (const name of ["run", "all", "get", "iterate"]) {
    const orig = proto[name] as Fn;
    saved.set(name, orig);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const sql = (this as { source: string }).source.replace(/\s+/g, " ");
      runs.set(sql, (runs.get(sql) ?? 0) + 1);
      return orig.apply(this, args);
    };
  }
  try {
    await fn();
  } finally {
    for (const [name, orig] of saved) proto[name] = orig;
  }
  return runs;
}

async function night(date: string): Promise<void> {
  const r = await runMain([
    "night",
    ...["--catalog", catalog, "--data", join(dir, "data"), "--night", date],
    ...["--allow-private-addresses", "--gap-ms", "0"],
  ]);
  expect(r.code, r.stderr).toBe(0);
}

/** How many times statements whose text matches `re` ran. */
function runsOf(runs: Map<string, number>, re: RegExp): number {
  let n = 0;
  for (const [sql, k] of runs) if (re.test(sql)) n += k;
  return n;
}

describe("the statements a source's check runs", () => {
  it("P8, P12: a first read asks its list's last read in its claim, a 304's page read comes with the source's turn: neither runs a statement of its own", async () => {
    const first = await counted(() => night("2026-11-05"));
    // The claim of each source with records, its RETURNING asking what READS_BEFORE asks.
    expect(runsOf(first, /^insert into "night_sources" .* returning "source_id", \(select/)).toBe(
      FEEDS,
    );
    expect(runsOf(first, /^select \(select "night" from "night_sources"/)).toBe(0);
    expect(runsOf(first, /^select exists \(select 1 as "one" from "records"/)).toBe(0);

    const second = await counted(() => night("2026-11-06"));
    // Each source's turn, with its page reads.
    expect(runsOf(second, /left join "page_reads" as "pr"/)).toBe(FEEDS);
    expect(runsOf(second, /from "page_reads" as "pr" where/)).toBe(0);
    // P8: whether tonight already has its answer is settled by the latest copy, saved by an
    // earlier night before tonight began: no copy asked for by its night (migration 038).
    expect(runsOf(second, /from "captures" where .*"night" = \?/)).toBe(0);

    const db = new Database(join(dir, "data", "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare(
          "select night, outcome, records_found from night_sources order by night, source_id",
        )
        .all() as { night: string; outcome: string; records_found: number }[];
      expect(rows).toEqual([
        ...Array.from({ length: FEEDS }, () => ({
          night: "2026-11-05",
          outcome: "ok",
          records_found: 3,
        })),
        // Counted from the page read at the turn: the 304's three records, known.
        ...Array.from({ length: FEEDS }, () => ({
          night: "2026-11-06",
          outcome: "unchanged",
          records_found: 3,
        })),
      ]);
    } finally {
      db.close();
    }
  });
});
