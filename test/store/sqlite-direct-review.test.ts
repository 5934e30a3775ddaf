import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { sqliteFactory } from "./stores.js";

const factory = sqliteFactory();
afterAll(() => factory.cleanup());

const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
  db.selectFrom("validators").select(["url", "etag"]).where("url", "=", $("url")),
);
const row = (url: string) => ({ url, etag: null, last_modified: null, updated_at: "t" });

/**
 * src/store/sqlite-direct.ts, from its review: "only where kysely would have run it at once,
 * in the same state"; "while someone holds it, the statement goes through kysely and waits its
 * turn, as before"; "results and errors as kysely's".
 */
describe("review: prepared statements straight on the SQLite connection", () => {
  it("a statement issued after a kysely statement that already took the connection runs after it", async () => {
    const store = await openStore(await factory.fresh());
    try {
      const { db } = store;
      // kysely takes the driver's lock when the query is issued, here: the connection counts
      // as held from that moment, not from when the lock is handed over, microtasks later.
      const write = db.insertInto("validators").values(row("http://a.example/1")).execute();
      const read = byUrl.first(db, { url: "http://a.example/1" });
      await write;
      // As through kysely, the read waits its turn behind the write and sees it.
      expect(await read).toEqual({ url: "http://a.example/1", etag: null });
    } finally {
      await store.close();
    }
  });

  it("first and rows give a rejected promise, never a synchronous throw, on every path", async () => {
    const store = await openStore(await factory.fresh());
    try {
      const { db } = store;
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
    } finally {
      await store.close();
    }
  });

  it("a statement on a closed store fails as kysely's would", async () => {
    const store = await openStore(await factory.fresh());
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
