import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatementCache } from "../../src/store/statement-cache.js";
import { nor } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "../night/cli-night.js";

describe("StatementCache: one compiled statement per SQL text", () => {
  it("hands back the same statement for the same SQL, and runs it with each call's parameters", () => {
    const db = new StatementCache(new Database(":memory:"));
    try {
      db.prepare("create table t (a integer)").run([]);
      const insert = db.prepare("insert into t (a) values (?)");
      for (let i = 0; i < 5; i++) {
        expect(db.prepare("insert into t (a) values (?)")).toBe(insert);
        insert.run([i]);
      }
      expect(db.prepare("select sum(a) as s from t where a >= ?").all([3])).toEqual([{ s: 7 }]);
      expect(db.prepare("select sum(a) as s from t where a >= ?").all([0])).toEqual([{ s: 10 }]);
    } finally {
      db.close();
    }
  });

  it("rows: the same rows better-sqlite3 makes (keys, their order, values), built from raw rows", () => {
    const db = new StatementCache(new Database(":memory:"));
    try {
      db.prepare(
        'create table t (id integer primary key, "a b" text, "2" integer, x real, y blob, z text, "__proto__" text)',
      ).run([]);
      const insert = db.prepare(
        'insert into t (id, "a b", "2", x, y, z, "__proto__") values (?, ?, ?, ?, ?, ?, ?)',
      );
      insert.run([1, "one", 2, 1.5, Buffer.from([1, 2]), null, "p"]);
      insert.run([2, 'two "quoted" \u2028', 9007199254740991, -0.25, null, "z", null]);
      const same = (sql: string, params: unknown[] = []) => {
        const made = db.rows(sql, params);
        const theirs = db.prepare(sql).all(params) as Record<string, unknown>[];
        expect(made).toEqual(theirs);
        expect(made.map((r) => Object.keys(r))).toEqual(theirs.map((r) => Object.keys(r)));
        expect(made.map((r) => Object.getPrototypeOf(r))).toEqual(
          theirs.map((r) => Object.getPrototypeOf(r)),
        );
        return made;
      };
      same('select id, "a b", "2", x, y, z from t order by id');
      // A later column of the same name wins, in the first one's place, as better-sqlite3 does.
      expect(same("select id as k, z as v, x as k from t order by id")).toEqual([
        { k: 1.5, v: null },
        { k: -0.25, v: "z" },
      ]);
      same("select * from t where id = ?", [2]);
      same("select * from t where id = ?", [3]);
      // A column named __proto__ is read by better-sqlite3 itself (which sets the prototype).
      same('select id, "__proto__" from t order by id');
      same('select id, "__proto__" from t order by id');
      // Run again: the statement and its builder are made once, the rows are each run's.
      insert.run([3, "three", 3, 3, null, null, null]);
      expect(same("select * from t where id = ?", [3])).toHaveLength(1);
      // A column added since (a migration): SQLite prepares the statement again, and its rows
      // have the new column, as better-sqlite3's own do.
      db.prepare("create table u (id integer primary key, a text)").run([]);
      db.prepare("insert into u (id, a) values (?, ?)").run([1, "x"]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ id: 1, a: "x" }]);
      db.prepare("alter table u add column w text default 'new'").run([]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ id: 1, a: "x", w: "new" }]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ id: 1, a: "x", w: "new" }]);
      // The table made anew in another order, as a migration does (the same width): each value
      // under its own name.
      for (const ddl of [
        "create table u2 (w text, a text, id integer primary key)",
        "insert into u2 (w, a, id) select w, a, id from u",
        "drop table u",
        "alter table u2 rename to u",
      ])
        db.prepare(ddl).run([]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ w: "new", a: "x", id: 1 }]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ w: "new", a: "x", id: 1 }]);
      // A column renamed: the new name.
      db.prepare("alter table u rename column a to b").run([]);
      expect(same("select * from u where id = ?", [1])).toEqual([{ w: "new", b: "x", id: 1 }]);
      expect(same('select "u".* from u where id = ?', [1])).toEqual([{ w: "new", b: "x", id: 1 }]);
    } finally {
      db.close();
    }
  });

  it("is bounded: the least recently used statement is dropped first", () => {
    const db = new StatementCache(new Database(":memory:"), 2);
    try {
      const a = db.prepare("select 1 as a");
      const b = db.prepare("select 2 as b");
      expect(db.prepare("select 1 as a")).toBe(a); // a is now the most recent
      db.prepare("select 3 as c"); // drops b, the least recent
      expect(db.size).toBe(2);
      expect(db.prepare("select 1 as a")).toBe(a);
      expect(db.prepare("select 2 as b")).not.toBe(b);
    } finally {
      db.close();
    }
  });

  it("never hands out a statement whose iterator is still open: that caller gets its own", () => {
    const db = new StatementCache(new Database(":memory:"));
    try {
      const q = "select value from json_each('[1,2,3]')";
      const first = db.prepare(q);
      const it = first.iterate([]);
      it.next();
      const second = db.prepare(q);
      expect(second).not.toBe(first);
      expect(second.all([])).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
      it.return?.();
      expect(db.prepare(q)).toBe(first);
    } finally {
      db.close();
    }
  });
});

/**
 * The engine prepares each SQL text once: better-sqlite3's own `prepare` is counted over a
 * real `nor night` in this process (loopback sites, the SQL journal, the WARC archive), and
 * so are the statements' runs. Without the cache every run is a prepare (kysely prepares per
 * query); with it, each distinct SQL text is prepared once.
 */
describe("a real night prepares each statement once", () => {
  let fleet: Fleet;
  let dir: string;
  const prepared = new Map<string, number>();
  const runs = new Map<string, number>();
  const proto = Database.prototype as unknown as { prepare(sql: string): unknown };
  const realPrepare = proto.prepare;

  beforeAll(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-stmt-"));
    const sources: string[][] = [];
    for (let s = 0; s < 3; s++) {
      const site = await fleet.server({ host: `127.0.0.${s + 2}` });
      for (let i = 0; i < 4; i++) {
        const path = `/agendas-${i}.rss`;
        site.route(path, (_q, res) => {
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 3, `s${s}-${i}`));
        });
        sources.push([
          `id: src-${s}-${i}`,
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${site.url(path)}`,
        ]);
      }
    }
    writeCatalog(dir, sources);
    // Counted at the driver: every compile of SQL, and every run of a compiled statement.
    proto.prepare = function (this: { readonly: boolean }, sql: string) {
      // A store has two connections, each compiling its own: the one that writes, and the
      // read-only one reads use while the first is taken (sqlite-direct.ts).
      const key = `${this.readonly ? "reads" : "writes"}: ${sql}`;
      prepared.set(key, (prepared.get(key) ?? 0) + 1);
      const stmt = realPrepare.call(this, sql) as Record<string, unknown>;
      return stmt;
    };
    const probe = new Database(":memory:");
    const stmtProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<
      string,
      (...a: unknown[]) => unknown
    >;
    probe.close();
    for (const m of ["all", "run", "get", "iterate"] as const) {
      const real = stmtProto[m] as (...a: unknown[]) => unknown;
      stmtProto[m] = function (this: { source: string }, ...a: unknown[]) {
        runs.set(this.source, (runs.get(this.source) ?? 0) + 1);
        return real.apply(this, a);
      };
    }
  }, 60_000);

  afterAll(async () => {
    proto.prepare = realPrepare;
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P27, P8: over two nights of 12 sources the SQL journal and the archive index compile each SQL text once, however often it runs", async () => {
    const common = ["--data", dir, "--allow-private-addresses", "--gap-ms", "10"];
    const catalog = join(dir, "catalog.yaml");
    for (const night of ["2026-11-05", "2026-11-06"]) {
      const r = await nor("night", "--catalog", catalog, ...common, "--night", night);
      expect(r.code, r.stderr).toBe(0);
    }
    const seen = fleet.requests.length;
    expect(seen).toBeGreaterThanOrEqual(2 * 12);
    // Each night opens the store once: each SQL text is compiled at most once per open store.
    const twice = [...prepared.entries()].filter(([, n]) => n > 2);
    expect(twice, "SQL compiled more than once per store").toEqual([]);
    // The night's own statements (run several times, unlike the migrations) ran many times
    // more often than they were compiled.
    const hot = [...runs.entries()].filter(([, n]) => n >= 6);
    expect(hot.length).toBeGreaterThan(10);
    const hotRuns = hot.reduce((n, [, r]) => n + r, 0);
    const hotPrepares = hot.reduce(
      (n, [sql]) =>
        n + (prepared.get(`writes: ${sql}`) ?? 0) + (prepared.get(`reads: ${sql}`) ?? 0),
      0,
    );
    expect(hotRuns).toBeGreaterThan(5 * hotPrepares);
  }, 120_000);
});
