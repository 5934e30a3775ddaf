import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteFactory } from "../store/stores.js";
import {
  buildFixture,
  buildFixtureAfresh,
  catalog,
  catalogRead,
  type FixtureOptions,
} from "./fixture.js";

/** Every table's rows in rowid order, the schema, and the pragmas a store is known by. */
function dump(file: string): Record<string, unknown> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare("select name, sql from sqlite_master where type = 'table' order by name")
      .all() as { name: string; sql: string }[];
    const out: Record<string, unknown> = {
      schema: db.prepare("select type, name, sql from sqlite_master order by type, name").all(),
      user_version: db.pragma("user_version", { simple: true }),
      application_id: db.pragma("application_id", { simple: true }),
    };
    for (const t of tables) {
      const withRowid = !/without rowid\s*$/i.test(t.sql ?? "");
      out[t.name] = db
        .prepare(`select * from "${t.name}"${withRowid ? " order by rowid" : ""}`)
        .all();
    }
    return out;
  } finally {
    db.close();
  }
}

/**
 * The web tests' fixture (fixture.ts) on SQLite is a copy of one this process built once: that
 * copy must hold exactly what building it afresh writes, for each set of options, in a place
 * of its own or in the place a store factory gives.
 */
describe("the web fixture, copied", () => {
  it.each<[string, FixtureOptions]>([
    ["no options", {}],
    ["scriptRecord", { scriptRecord: true }],
    ["firstReadsListed", { firstReadsListed: true }],
  ])("holds row for row what one built afresh holds (%s)", async (_, opts) => {
    const built = await buildFixtureAfresh(opts);
    const copied = await buildFixture(undefined, opts);
    const factory = sqliteFactory();
    const loc = await factory.migrated();
    const inPlace = await buildFixture(loc, opts);
    try {
      await built.store.close();
      await copied.store.close();
      await inPlace.store.close();
      const want = dump(join(built.dir, "nor.db"));
      expect(Object.keys(want).length).toBeGreaterThan(20);
      expect((want["records"] as unknown[]).length).toBeGreaterThan(5);
      expect(dump(join(copied.dir, "nor.db"))).toEqual(want);
      if (loc.kind !== "sqlite") throw new Error("not SQLite");
      expect(dump(join(loc.dir, "nor.db"))).toEqual(want);
    } finally {
      await built.close().catch(() => {});
      await copied.close().catch(() => {});
      await inPlace.close().catch(() => {});
      await factory.cleanup();
    }
  });

  it("its catalog, read once a process, is what parseCatalog reads each time, and each caller's copy is its own", () => {
    const mine = catalog();
    expect(mine).toStrictEqual(catalogRead());
    mine.sources.pop();
    (mine.governments[0] as { name: string }).name = "changed";
    expect(catalog()).toStrictEqual(catalogRead());
  });
});
