import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresPool, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { isStalePlan, namedTexts } from "../../src/store/pg-named.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { writeTxnRetried } from "../../src/store/write-txn.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * Issue 13: the statements prepared.ts builds once run on PostgreSQL as named statements,
 * parsed once a connection (src/store/pg-named.ts), with the same rows and errors as before.
 */
describe.skipIf(!postgresUrl)("named statements on PostgreSQL", () => {
  const f = postgresFactory(postgresUrl ?? "");
  afterAll(() => f.cleanup());

  const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
    db.selectFrom("validators").select(["url", "etag"]).where("url", "=", $("url")),
  );
  const put = prepared((db, $: Placeholder<{ url: string; etag: string }>) =>
    db
      .insertInto("validators")
      .values({ url: $("url"), etag: $("etag"), last_modified: null, updated_at: "t" }),
  );

  /** A pool of one connection, so every statement below runs on the same session. */
  async function oneConnection() {
    const loc = await f.migrated();
    if (loc.kind !== "postgres") throw new Error("a PostgreSQL store was expected");
    const store = await openStore(loc);
    await store.close();
    const db = await openPostgresPool(loc.url, 1, "pg-named-test");
    const alter = async (text: string) => {
      const c = new pg.Client({ connectionString: loc.url });
      await c.connect();
      try {
        await c.query(text);
      } finally {
        await c.end();
      }
    };
    return { db, alter };
  }

  it("issue 13: a prepared statement is parsed once a connection, under its own name, and gives the same rows and errors", async () => {
    const { db } = await oneConnection();
    try {
      await put.run(db, { url: "http://a.example/", etag: '"a\u0000"' });
      for (let i = 0; i < 3; i++)
        expect((await byUrl.first(db, { url: "http://a.example/" }))?.etag).toBe('"a\uFFFD"');
      expect(await byUrl.first(db, { url: "http://b.example/" })).toBeUndefined();
      const name = namedTexts().get(byUrl.compile(db, { url: "" }).sql);
      expect(name).toMatch(/^nor_\d+$/);
      const held = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
      expect(held.rows.filter((r) => r.name === name)).toHaveLength(1);
      // The same error as an unnamed statement gives: the key taken.
      const err = await put.run(db, { url: "http://a.example/", etag: "x" }).catch((e) => e);
      expect((err as { code?: string }).code).toBe("23505");
      // Inside a transaction too, where it runs in that transaction.
      await expect(
        db.transaction().execute(async (tx) => {
          await put.run(tx, { url: "http://c.example/", etag: "c" });
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await byUrl.first(db, { url: "http://c.example/" })).toBeUndefined();
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: a column's type changed under a cached statement (a `select *` is never named: revpgdirect-named.test.ts): a statement of its own runs again under a new name; one in a transaction fails that transaction once, and the next runs (writeTxnRetried runs it again)", async () => {
    const { db, alter } = await oneConnection();
    try {
      await put.run(db, { url: "http://a.example/", etag: "a" });
      expect((await byUrl.first(db, { url: "http://a.example/" }))?.etag).toBe("a");
      // Another process's migration, say: the result's type is another.
      await alter(`alter table validators alter column etag type varchar(100)`);
      const row = (await byUrl.first(db, { url: "http://a.example/" })) as Record<string, unknown>;
      expect(row["etag"]).toBe("a");

      await alter(`alter table validators alter column etag type varchar(200)`);
      const failed = await db
        .transaction()
        .execute((tx) => byUrl.first(tx, { url: "http://a.example/" }))
        .catch((e) => e);
      expect(isStalePlan(failed)).toBe(true);
      const again = (await db
        .transaction()
        .execute((tx) => byUrl.first(tx, { url: "http://a.example/" }))) as Record<string, unknown>;
      expect(again["etag"]).toBe("a");

      // A transaction run again when it loses a race (writeTxnRetried) runs again here too.
      await alter(`alter table validators alter column etag type varchar(300)`);
      const retried = (await writeTxnRetried(db, (tx) =>
        byUrl.first(tx, { url: "http://a.example/" }),
      )) as Record<string, unknown>;
      expect(retried["etag"]).toBe("a");
    } finally {
      await db.destroy();
    }
  });
});
