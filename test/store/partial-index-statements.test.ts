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
 * Every statement a real night prepares (two nights over loopback, in this process), held to the
 * store's partial indexes: none compares a column of an index's `col = value` predicate to a
 * bound parameter. SQLite, weighing such an index, ties the statement to the value bound and
 * prepares it again at every run: READS_BEFORE did, once a source a night, about a tenth of night
 * 1's CPU at 20,000 sources (docs/benchmarks.md). partial-index-literals.test.ts reads src/ for
 * `already_listed`; this one sees what a night actually runs, whatever the column or table.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-partial-stmts-"));
let server: Server;
let catalog = "";
let night = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/robots.txt") return void res.writeHead(404).end();
    // Night 2 adds a record: the new-record path runs too.
    const items = [1, ...(night >= 2 ? [2] : [])]
      .map(
        (i) =>
          `<item><title>Agenda ${i}</title><link>http://127.0.0.1/a${i}</link><pubDate>Mon, 0${i} Nov 2026 10:00:00 GMT</pubDate></item>`,
      )
      .join("");
    res
      .writeHead(200, { "content-type": "application/rss+xml" })
      .end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items}</channel></rss>`,
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Partial", {
    "partial-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
    "partial-empty": `records: bids, access: feed, url: "http://127.0.0.1:${port}/empty.rss"`,
  });
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** `table` and `column` of each partial index whose predicate compares the column to a value. */
function equalityPredicates(file: string): { table: string; column: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        "select tbl_name as t, sql from sqlite_master where type = 'index' and sql is not null",
      )
      .all() as { t: string; sql: string }[];
    const out: { table: string; column: string }[] = [];
    for (const r of rows) {
      const where = /\bwhere\b([\s\S]*)$/i.exec(r.sql)?.[1];
      if (where === undefined) continue;
      for (const m of where.matchAll(/"?(\w+)"?\s*(?:=|==|\bis\b(?!\s+not\b))\s*(?!null\b)/gi))
        out.push({ table: r.t, column: m[1] as string });
    }
    return out;
  } finally {
    db.close();
  }
}

describe("the statements a night runs and the store's partial indexes", () => {
  it("none binds a value a partial index's predicate compares (SQLite would prepare it again at every run)", async () => {
    const seen = new Set<string>();
    const proto = Database.prototype as unknown as { prepare: (sql: string) => unknown };
    const prepare = proto.prepare;
    proto.prepare = function (this: unknown, sql: string) {
      seen.add(sql);
      return prepare.call(this, sql);
    };
    try {
      for (const date of ["2026-11-05", "2026-11-06"]) {
        night++;
        const r = await runMain([
          "night",
          ...["--catalog", catalog, "--data", join(dir, "data"), "--night", date],
          ...["--allow-private-addresses", "--gap-ms", "0"],
        ]);
        expect(r.code, r.stderr).toBe(0);
      }
    } finally {
      proto.prepare = prepare;
    }
    const predicates = equalityPredicates(join(dir, "data", "nor.db"));
    // The schema has them (a test of nothing otherwise).
    expect(predicates).toContainEqual({ table: "night_sources", column: "outcome" });
    expect(predicates).toContainEqual({ table: "records", column: "already_listed" });
    expect(seen.size).toBeGreaterThan(20);
    const bound: string[] = [];
    for (const sql of seen) {
      // An upsert's DO UPDATE (its assignments and its WHERE) chooses no index: left out. Its
      // RETURNING is kept: a subquery there chooses indexes as any other (a claim asks
      // READS_BEFORE's columns in its RETURNING: night-store.ts CLAIM_READING).
      const text = sql.replace(/\bon conflict\b[\s\S]*?(?=\breturning\b|$)/i, "");
      for (const { table, column } of predicates) {
        if (!new RegExp(`\\b(from|join|into|update)\\s+"?${table}"?(\\s|$)`, "i").test(text))
          continue;
        if (
          new RegExp(
            `(^|[^\\w])"?(\\w+"?\\.)?"?${column}"?\\s*(=|==|\\bis\\b)\\s*(\\?|\\$\\d)`,
            "i",
          ).test(text)
        )
          bound.push(`${table}.${column}: ${sql}`);
      }
    }
    expect(bound).toEqual([]);
  });
});
