import { describe, expect, it } from "vitest";
import { NIGHT_STORE_OPTIONS } from "../../src/cli/commands/night.js";
import { openStore, type Store } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { storeFactories } from "./stores.js";

const sqlite = storeFactories().find((f) => f.name === "sqlite");

/** The page cache of the store's own connection, as SQLite's `cache_size` says it (KiB < 0). */
async function cacheSize(store: Store): Promise<number> {
  const r = await sql<{ cache_size: number }>`pragma cache_size`.execute(store.db);
  return Number(r.rows[0]?.cache_size);
}

describe.skipIf(sqlite === undefined)("a night's store and SQLite's page cache", () => {
  it("a night opens its store with SQLite's own page cache, 2 MiB, not better-sqlite3's 16,000 KiB, which a night of 20,000 new sources filled", async () => {
    const factory = sqlite as NonNullable<typeof sqlite>;
    const night = await openStore(await factory.migrated(), NIGHT_STORE_OPTIONS);
    const other = await openStore(await factory.migrated());
    try {
      expect(await cacheSize(night)).toBe(-2048);
      // Any other command keeps the driver's default: larger (a test of something).
      expect(await cacheSize(other)).toBeLessThan(-2048);
    } finally {
      await night.close();
      await other.close();
    }
  });
});
