import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { stampCatalogFiles } from "../../src/sources/catalog/stamp.js";
import { importCatalogFiles } from "../../src/sources/catalog-import.js";
import { catalogStampOf, sourcesInUse } from "../../src/store/catalog-sources.js";
import { openStore, type Store } from "../../src/store/db.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * The catalog stamp says the store holds exactly the sources of the files it names, and a night
 * of those files then runs the store's sources without reading them. On PostgreSQL two imports
 * can run at once (`nor catalog import` while a night opens, or on another machine): each must
 * see the other's rows, or the last to commit records its stamp over rows it never saw (a
 * source only the other catalog has left in use), and every later night of its files runs that
 * source. (SQLite's imports are serialised by BEGIN IMMEDIATE.)
 */
describe.skipIf(postgresUrl === undefined)("concurrent catalog imports on PostgreSQL", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  const dir = mkdtempSync(join(tmpdir(), "nor-stamp-race-"));
  afterAll(async () => {
    await factory.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const src = (id: string, url: string) =>
    `  - { id: ${id}, government: g, records: bids, access: feed, url: "${url}" }\n`;
  const write = (name: string, sources: string) => {
    const f = join(dir, name);
    writeFileSync(f, `governments:\n  - { id: g, name: G, kind: city }\nsources:\n${sources}`);
    return f;
  };
  /** Backends of this test's imports waiting on a lock (bounded wait for `n` of them). */
  const waiting = async (admin: Store, n: number) => {
    for (let i = 0; i < 500; i++) {
      const { rows } = await sql<{ n: string | number }>`
        select count(*) as n from pg_stat_activity
        where wait_event_type = 'Lock' and state = 'active'
          and (query ilike '%catalog_stamp%' or query ilike '%"sources"%')`.execute(admin.db);
      if (Number(rows[0]?.n) >= n) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`fewer than ${n} imports waiting on a lock`);
  };

  it("the stamp recorded last describes the sources in use: an import racing another sees its rows", async () => {
    const loc = await factory.fresh();
    const store = await openStore(loc);
    const admin = await openStore(loc);
    const via = async () => ({ db: store.db, close: async () => {} });
    const T = Date.UTC(2026, 10, 5, 8, 0, 0);
    try {
      const f0 = write("c0.yaml", src("a", "https://x.gov/a") + src("b", "https://x.gov/b"));
      expect((await importCatalogFiles([f0], via, () => T)).kind).toBe("imported");
      // f1 changes a and adds x; f2 changes a otherwise and has no x.
      const f1 = write(
        "c1.yaml",
        src("a", "https://x.gov/a1") + src("b", "https://x.gov/b") + src("x", "https://x.gov/x"),
      );
      const f2 = write("c2.yaml", src("a", "https://x.gov/a2") + src("b", "https://x.gov/b"));

      // Another session holds the stamp row: the first import writes its rows, then waits there.
      let release!: () => void;
      const released = new Promise<void>((r) => {
        release = r;
      });
      let held!: () => void;
      const holding = new Promise<void>((r) => {
        held = r;
      });
      const locker = admin.db.transaction().execute(async (tx) => {
        await sql`select digest from catalog_stamp where id = 1 for update`.execute(tx);
        held();
        await released;
      });
      await holding;
      const first = importCatalogFiles([f1], via, () => T + 1);
      await waiting(admin, 1);
      // The second starts while the first is not committed, and waits on a lock of its own.
      const second = importCatalogFiles([f2], via, () => T + 2, { allowRetire: true });
      await waiting(admin, 2);
      release();
      await locker;
      const outcomes = await Promise.allSettled([first, second]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);

      const stamp = await catalogStampOf(store.db);
      const inUse = (await sourcesInUse(store.db))?.map((s) => `${s.id} ${s.url}`);
      const digests = new Map([
        [
          stampCatalogFiles([f1])?.digest,
          ["a https://x.gov/a1", "b https://x.gov/b", "x https://x.gov/x"],
        ],
        [stampCatalogFiles([f2])?.digest, ["a https://x.gov/a2", "b https://x.gov/b"]],
      ]);
      expect(digests.has(stamp)).toBe(true);
      expect(inUse).toEqual(digests.get(stamp));
    } finally {
      await admin.close();
      await store.close();
    }
  }, 60_000);
});
