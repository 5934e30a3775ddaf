import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { READS_BEFORE } from "../../src/store/night-records.js";
import { storeFactories } from "./stores.js";

const sqlite = storeFactories().find((f) => f.name === "sqlite");

/**
 * A column a partial index's predicate compares to a value (`where outcome = 'checker-offline'`),
 * with its table: SQLite, weighing that index for a statement that compares the same column to a
 * bound parameter, marks the parameter so that binding it again (every run) expires the
 * statement, which is then prepared again at each run. The night's statements run once a source.
 */
function partialColumns(indexSql: string[]): { table: string; column: string }[] {
  const out: { table: string; column: string }[] = [];
  for (const s of indexSql) {
    const m = /\bon\s+"?(\w+)"?\s*\([^)]*\)\s+where\s+([\s\S]*)$/i.exec(s);
    if (!m) continue;
    for (const c of (m[2] as string).matchAll(/"?(\w+)"?\s*=\s*(?:'[^']*'|\d+)/g))
      out.push({ table: m[1] as string, column: c[1] as string });
  }
  return out;
}

describe.skipIf(sqlite === undefined)("the night's statements and the partial indexes", () => {
  it("READS_BEFORE (a source's list read before, once a source a night) binds no value a partial index's predicate compares: SQLite would prepare it again at every run", async () => {
    const store = await openStore(await (sqlite as NonNullable<typeof sqlite>).migrated());
    try {
      const { db } = store;
      const indexes = await db
        .selectFrom("sqlite_master" as never)
        .select("sql" as never)
        .where("type" as never, "=", "index" as never)
        .where("sql" as never, "is not", null as never)
        .execute();
      const columns = partialColumns(indexes.map((r) => (r as { sql: string }).sql));
      // The schema has them (a test of nothing otherwise): night_sources_offline, records' own.
      expect(columns).toContainEqual({ table: "night_sources", column: "outcome" });
      const { sql } = READS_BEFORE.compile(db, {
        sourceId: "s",
        night: "2026-11-05",
        since: "2026-10-06",
        address: "http://a.example/feed",
        reader: "r",
      });
      const read = columns.filter((c) => sql.includes(`from "${c.table}"`));
      expect(read.length).toBeGreaterThan(0);
      for (const { column } of read) expect(sql).not.toMatch(new RegExp(`"${column}" = \\?`));
    } finally {
      await store.close();
    }
  });
});

describe("records' already_listed, a partial index's predicate (records_new_by_night, records_changed)", () => {
  it("is compared to a literal wherever src/ writes a kysely where, join on or expression on it, or a raw sql template: a bound 0 or 1 would have SQLite prepare the statement again at every run", () => {
    const root = join(import.meta.dirname, "..", "..", "src");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    const bound: string[] = [];
    let seen = 0;
    for (const f of files) {
      const text = readFileSync(join(root, f), "utf8");
      // `.where(…)`, a join's `.on(…)` and the expression builder's `eb(…)` alike: each puts
      // the comparison in a statement's WHERE or ON, where SQLite weighs the partial indexes.
      for (const m of text.matchAll(
        /(?:\.where|\.on|\beb)\(\s*"(?:\w+\.)?already_listed"\s*,\s*"(?:=|==|is|in)"\s*,\s*([^)]*)\)/g,
      )) {
        seen++;
        if (!(m[1] ?? "").startsWith("sql.lit(")) bound.push(`${f}: ${m[0]}`);
      }
      // A raw template interpolating a value against it: `already_listed = ${x}` binds x.
      for (const m of text.matchAll(/already_listed\s*(?:=|==|is|in)\s*\(?\$\{[^}]*\}/g))
        bound.push(`${f}: ${m[0]}`);
    }
    expect(seen).toBeGreaterThan(0);
    expect(bound).toEqual([]);
  });
});
