import { afterAll, describe, expect, it } from "vitest";
import { firstKnownNight } from "../../src/store/admin.js";
import { type Db, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "./stores.js";

/**
 * The earliest night a store knows (what `nor mark --night` is held to): the New York date the
 * migrator recorded making it, or its first night when one was run dated before that; the same
 * on SQLite and PostgreSQL.
 */
const factories: StoreFactory[] = [sqliteFactory()];
if (postgresUrl) factories.push(postgresFactory(postgresUrl));

async function night(db: Db, n: string): Promise<void> {
  await db
    .insertInto("nights")
    .values({
      night: n,
      started_at: `${n}T06:00:00.000Z`,
      deadline_at: `${n}T12:00:00.000Z`,
      finished_at: null,
      runs: 1,
      user_agent: null,
    })
    .execute();
}

describe.each(factories)("firstKnownNight on $name", (factory) => {
  afterAll(() => factory.cleanup());

  it("P25: the store's making (New York date) until a night dated earlier is run, then that night", async () => {
    const store = await openStore(await factory.migrated());
    try {
      // 02:00 UTC on Nov 21 is still Nov 20 in New York.
      await sql`update kysely_migration set "timestamp" = ${"2026-11-21T02:00:00.000Z"}`.execute(
        store.db,
      );
      expect(await firstKnownNight(store.db)).toEqual({ night: "2026-11-20", from: "made" });
      await night(store.db, "2026-11-22");
      expect(await firstKnownNight(store.db)).toEqual({ night: "2026-11-20", from: "made" });
      await night(store.db, "2026-11-05");
      expect(await firstKnownNight(store.db)).toEqual({ night: "2026-11-05", from: "first-night" });
    } finally {
      await store.close();
    }
  });
});
