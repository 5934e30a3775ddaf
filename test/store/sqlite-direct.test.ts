import { copyFileSync, readdirSync, readlinkSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openStore } from "../../src/store/db.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { directNow, directOfStore } from "../../src/store/sqlite-direct.js";
import { writeTxn } from "../../src/store/write-txn.js";
import { sqliteFactory } from "./stores.js";

const factory = sqliteFactory();
afterAll(() => factory.cleanup());

const put = prepared((db, $: Placeholder<{ url: string; etag: string | null }>) =>
  db
    .insertInto("validators")
    .values({ url: $("url"), etag: $("etag"), last_modified: null, updated_at: "t" }),
);
const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
  db.selectFrom("validators").select(["url", "etag"]).where("url", "=", $("url")),
);
const row = (url: string) => ({ url, etag: null, last_modified: null, updated_at: "t" });
const all = prepared((db) => db.selectFrom("validators").select("url").orderBy("url"));

/** `fn` with a fresh store, closed after. */
async function withStore(fn: (db: Db) => Promise<void>): Promise<void> {
  const store = await openStore(await factory.migrated());
  try {
    await fn(store.db);
  } finally {
    await store.close();
  }
}

/** A promise and the function that settles it. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { wait, open };
}

/**
 * src/store/sqlite-direct.ts: on SQLite a prepared statement runs on the connection without
 * kysely's executor only where kysely would have run it at once, in the same state. P27 and
 * P8 rest on this: a journal row is durable when its transaction committed, and no statement
 * of another lane may slip into a transaction still open, or read what it has not committed.
 */
describe("prepared statements straight on the SQLite connection", () => {
  it("P27: a statement on the store while a write transaction is open waits for it: it neither joins it nor reads what it rolled back", async () => {
    await withStore(async (db) => {
      const inside = gate();
      const goOn = gate();
      const txn = writeTxn(db, async (tx) => {
        // Straight on the connection this transaction holds.
        expect(directNow(tx)).toBe(directOfStore(db));
        await put.run(tx, { url: "http://a.example/rolled-back", etag: null });
        inside.open();
        await goOn.wait;
        throw new Error("roll back");
      }).catch((err: Error) => err.message);
      await inside.wait;
      // The connection is held: nothing goes straight to it from the store now.
      expect(directNow(db)).toBeUndefined();
      const write = put.run(db, { url: "http://a.example/own", etag: '"1"' });
      const read = byUrl.first(db, { url: "http://a.example/rolled-back" });
      goOn.open();
      expect(await txn).toBe("roll back");
      await write;
      // The read ran after the rollback, as its own transaction: the row was never there.
      expect(await read).toBeUndefined();
      // The write was a transaction of its own, committed, not rolled back with the other.
      expect(await all.rows(db, {})).toEqual([{ url: "http://a.example/own" }]);
      // Free again: the store's statements go straight to the connection.
      expect(directNow(db)).toBe(directOfStore(db));
    });
  });

  it("P27: a write transaction's own statements see its writes, and commit or roll back with it", async () => {
    await withStore(async (db) => {
      await writeTxn(db, async (tx) => {
        await put.run(tx, { url: "http://b.example/1", etag: null });
        expect(await byUrl.first(tx, { url: "http://b.example/1" })).toEqual({
          url: "http://b.example/1",
          etag: null,
        });
      });
      await writeTxn(db, async (tx) => {
        await put.run(tx, { url: "http://b.example/2", etag: null });
        throw new Error("no");
      }).catch(() => {});
      expect(await all.rows(db, {})).toEqual([{ url: "http://b.example/1" }]);
      // The handle of a transaction that is over no longer counts as holding the connection.
      let after: object | undefined;
      await writeTxn(db, async (tx) => {
        after = tx;
      });
      expect(directNow(after as object)).toBeUndefined();
    });
  });

  it("gives what kysely's connection gives: rows, affected rows, insert id, errors; U+0000 mapped", async () => {
    await withStore(async (db) => {
      const args = { url: "http://c.example/\u0000", etag: '"a\u0000b"' };
      // The same statement through kysely (a transaction of kysely's: never straight).
      const viaKysely = await db
        .transaction()
        .execute((trx) =>
          trx.executeQuery(put.compile(trx, { ...args, url: "http://c.example/k" })),
        );
      const straight = await put.run(db, args);
      expect(Object.keys(straight).sort()).toEqual(Object.keys(viaKysely).sort());
      expect(straight.numAffectedRows).toBe(1n);
      expect(typeof straight.insertId).toBe("bigint");
      expect(straight.insertId).toBe((viaKysely.insertId ?? 0n) + 1n);
      expect(straight.rows).toEqual([]);
      expect(await byUrl.first(db, { url: "http://c.example/\u0000" })).toEqual({
        url: "http://c.example/\uFFFD",
        etag: '"a\uFFFDb"',
      });
      // A constraint broken: the same error as through kysely, a rejected promise.
      await expect(put.run(db, args)).rejects.toMatchObject({
        code: "SQLITE_CONSTRAINT_PRIMARYKEY",
      });
      await expect(db.transaction().execute((trx) => put.run(trx, args))).rejects.toMatchObject({
        code: "SQLITE_CONSTRAINT_PRIMARYKEY",
      });
    });
  });

  it("a stream being read holds the connection: statements meanwhile go through kysely", async () => {
    await withStore(async (db) => {
      for (let i = 0; i < 3; i++) await put.run(db, { url: `http://d.example/${i}`, etag: null });
      const seen: string[] = [];
      for await (const row of db.selectFrom("validators").select("url").stream()) {
        seen.push(row.url);
        expect(directNow(db)).toBeUndefined();
      }
      expect(seen).toHaveLength(3);
      expect(directNow(db)).toBe(directOfStore(db));
    });
  });
  it("a write issued after a kysely statement that already took the connection runs after it", async () => {
    await withStore(async (db) => {
      // kysely takes the driver's lock when the query is issued, here: the connection counts
      // as held from that moment, not from when the lock is handed over, microtasks later.
      const first = db.insertInto("validators").values(row("http://a.example/1")).execute();
      const second = put.run(db, { url: "http://a.example/1", etag: "x" });
      await first;
      // As through kysely, the write waits its turn behind the first and meets its row.
      await expect(second).rejects.toThrow(/UNIQUE/);
    });
  });

  it("a read while the connection is taken reads the last committed state on a connection of its own, without waiting", async () => {
    await withStore(async (db) => {
      await put.run(db, { url: "http://a.example/0", etag: "old" });
      const held = gate();
      const inside = gate();
      // A write transaction holds the connection, its row written and not committed.
      const txn = writeTxn(db, async (tx) => {
        await tx.insertInto("validators").values(row("http://a.example/1")).execute();
        inside.open();
        await held.wait;
      });
      await inside.wait;
      expect(directNow(db)).toBeUndefined();
      // Not queued behind the transaction: read now, as committed (the row in flight unseen).
      expect(await byUrl.first(db, { url: "http://a.example/0" })).toEqual({
        url: "http://a.example/0",
        etag: "old",
      });
      expect(await byUrl.first(db, { url: "http://a.example/1" })).toBeUndefined();
      held.open();
      await txn;
      // Once committed, every read sees it.
      expect(await byUrl.first(db, { url: "http://a.example/1" })).toEqual({
        url: "http://a.example/1",
        etag: null,
      });
    });
  });

  it("the read-only connection closes with the store, and is never opened on another file put in the store's place", async () => {
    const loc = await factory.fresh();
    if (loc.kind !== "sqlite") throw new Error("a SQLite store");
    const file = join(loc.dir, "nor.db");
    /** This process's open descriptors on the store's file. */
    const open = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    const whileTaken = async (db: Db, read: () => Promise<unknown>): Promise<unknown> => {
      const held = gate();
      const inside = gate();
      const txn = writeTxn(db, async () => {
        inside.open();
        await held.wait;
      });
      await inside.wait;
      const out = read();
      held.open();
      await txn;
      return out;
    };
    const store = await openStore(loc);
    const alone = open();
    await put.run(store.db, { url: "http://a.example/1", etag: "mine" });
    await whileTaken(store.db, () => byUrl.first(store.db, { url: "http://a.example/1" }));
    expect(open()).toBe(alone + 1);
    await store.close();
    expect(open()).toBe(0);

    // A copy put in its place (a backup restored under a running night): reads while the
    // connection is taken wait their turn on the file the store opened, as before.
    const again = await openStore(loc);
    try {
      copyFileSync(file, `${file}.copy`);
      await put.run(again.db, { url: "http://a.example/2", etag: "after" });
      renameSync(`${file}.copy`, file);
      const read = await whileTaken(again.db, () =>
        byUrl.first(again.db, { url: "http://a.example/2" }),
      );
      expect(read).toEqual({ url: "http://a.example/2", etag: "after" });
    } finally {
      await again.close();
    }
  });

  it("first and rows give a rejected promise, never a synchronous throw, on every path", async () => {
    await withStore(async (db) => {
      const broken = prepared((_db, $: Placeholder<{ url: string }>) => {
        throw new Error(`cannot build ${String($("url"))}`);
      });
      const how = (f: () => Promise<unknown>): Promise<string> => {
        let p: Promise<unknown>;
        try {
          p = f();
        } catch {
          return Promise.resolve("thrown synchronously");
        }
        return p.then(
          () => "resolved",
          () => "rejected",
        );
      };
      // On the store, free: straight on the connection.
      expect(await how(() => broken.first(db, { url: "u" }))).toBe("rejected");
      // Inside a kysely transaction: through kysely (as on PostgreSQL).
      const inTrx = await db
        .transaction()
        .execute(async (trx) => [
          await how(() => broken.first(trx, { url: "u" })),
          await how(() => broken.rows(trx, { url: "u" })),
        ]);
      expect(inTrx).toEqual(["rejected", "rejected"]);
    });
  });

  it("a statement on a closed store fails as kysely's would", async () => {
    const store = await openStore(await factory.migrated());
    const { db } = store;
    await store.close();
    await expect(db.selectFrom("validators").selectAll().execute()).rejects.toThrow(
      "driver has already been destroyed",
    );
    await expect(byUrl.first(db, { url: "u" })).rejects.toThrow(
      "driver has already been destroyed",
    );
  });
});
