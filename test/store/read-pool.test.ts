import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import { type Db, openStore, type Store } from "../../src/store/db.js";
import { openReadPool } from "../../src/store/read-pool.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { entry } from "./entries.js";

/** The readers in worker threads (src/store/read-pool.ts): read-only, current, queued fairly. */
describe("read pool (SQLite in worker threads)", () => {
  let dir: string;
  let store: Store;
  let pool: Db;
  const T0 = Date.UTC(2026, 10, 5, 8);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-read-pool-"));
    store = await openStore({ kind: "sqlite", dir });
    await new SqlRequestLog(store.db).appendMany(
      Array.from({ length: 300 }, (_, i) => entry({ startedAt: T0 + i })),
    );
    pool = await openReadPool(dir, { readers: 2 });
  });
  afterAll(async () => {
    await pool?.destroy();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads what the store's own connection committed, also after the pool opened (WAL)", async () => {
    const log = new SqlRequestLog(pool);
    expect(await log.query()).toHaveLength(300);
    await new SqlRequestLog(store.db).append(
      entry({ startedAt: T0 + 1_000, url: "https://x.gov/" }),
    );
    expect((await log.query({ since: T0 + 1_000 })).map((e) => e.url)).toEqual(["https://x.gov/"]);
  });

  it("refuses a write (SQLITE_READONLY) and the store keeps its rows", async () => {
    await expect(new SqlRequestLog(pool).append(entry())).rejects.toMatchObject({
      code: "SQLITE_READONLY",
    });
    expect(await new SqlRequestLog(store.db).query()).toHaveLength(301);
  });

  it("answers 40 reads at once over 2 readers, each its own answer; a read transaction holds one reader", async () => {
    const log = new SqlRequestLog(pool);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => log.query({ since: T0 + i, until: T0 + i + 1 })),
    );
    expect(answers.map((a) => a.map((e) => e.startedAt))).toEqual(
      Array.from({ length: 40 }, (_, i) => [T0 + i]),
    );
    const both = await pool
      .transaction()
      .execute(async (tx) => [
        (await new SqlRequestLog(tx).query({ limit: 1 }))[0]?.startedAt,
        (await new SqlRequestLog(tx).query({ since: T0 + 299, limit: 1 }))[0]?.startedAt,
      ]);
    expect(both).toEqual([T0, T0 + 299]);
  });

  it("a directory without a store is an error when the pool opens, not on the first page", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nor-read-pool-none-"));
    try {
      const err = await openReadPool(empty).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NorError);
      expect((err as NorError).code).toBe("E_STORE");
      expect((err as NorError).message).toContain("cannot open a reader of the store");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
