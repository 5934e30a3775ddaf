import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresPool, openStore, type Store } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A PostgreSQL server drops connections (a restart, a failover, `pg_terminate_backend`): the
 * process that held them goes on, and its next statement works on a fresh connection. An
 * 'error' event nobody listened to used to end `nor serve` and `nor night` with a stack trace.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

/** Ends the connections named `app` of this database, as a server restart would end them all. */
async function dropConnections(url: string, app: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()
        and application_name = $1`,
      [app],
    );
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}

/** Until `ok()` answers true, every 20 ms, 5 s at most. */
async function eventually(ok: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 250; i++) {
    if (await ok().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe.skipIf(!factory)("PostgreSQL connections dropped by the server", () => {
  it("an idle connection dropped: no crash, and the next statement works", async () => {
    const loc = (await (factory as NonNullable<typeof factory>).fresh()) as {
      kind: "postgres";
      url: string;
    };
    // Only this test's connections are dropped: the database is shared with other test files.
    const app = `nor-test-idle-${process.pid}`;
    const url = new URL(loc.url);
    url.searchParams.set("application_name", app);
    const store: Store = await openStore({ ...loc, url: url.href });
    try {
      await sql`select 1`.execute(store.db);
      expect(await dropConnections(loc.url, app)).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 100));
      // The first statement after may meet the dead connection; a later one works.
      expect(
        await eventually(
          async () => (await sql`select 1 as x`.execute(store.db)).rows.length === 1,
        ),
      ).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("a connection dropped while a transaction holds it: that transaction fails, the process goes on", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const url = (loc as { url: string }).url;
    const app = `nor-test-held-${process.pid}`;
    const db = await openPostgresPool(url, 2, app);
    try {
      const failed = await db
        .transaction()
        .execute(async (tx) => {
          await sql`select 1`.execute(tx);
          // Checked out, between statements, when the server drops it.
          expect(await dropConnections(url, app)).toBeGreaterThan(0);
          await new Promise((r) => setTimeout(r, 100));
          await sql`select 1`.execute(tx);
        })
        .then(
          () => false,
          () => true,
        );
      expect(failed).toBe(true);
      expect(
        await eventually(async () => (await sql`select 1 as x`.execute(db)).rows.length === 1),
      ).toBe(true);
    } finally {
      await db.destroy();
    }
  });
});
