import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockForCatalogImport } from "../../src/night/catalog-beside-night.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * Review (revfixb): on PostgreSQL the night's rows (`night_runs`) and the lanes' leases are
 * judged by the database server's time (store-clock.ts), not by the reading machine's clock. A
 * machine whose clock runs 30 minutes behind read a night another machine ran, killed and its
 * lease run out a minute ago by the store's time, as live for half an hour more: its
 * `nor catalog import` refused.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await factory?.cleanup();
});

describe.skipIf(factory === undefined)("review(revfixb): night_runs read on a skewed clock", () => {
  it("P13, P26: a catalog import on a machine whose clock runs 30 minutes behind is not refused by a killed night whose lease ran out by the store's time", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const d = mkdtempSync(join(tmpdir(), "nor-revfixb-skew-"));
    dirs.push(d);
    const store = await openStore(loc);
    try {
      const r = await sql<{
        ms: string | number;
      }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(store.db);
      const server = Number(r.rows[0]?.ms);
      const iso = (ms: number) => new Date(ms).toISOString();
      // Another machine's night, killed two minutes ago: its lease ran out a minute ago, and no
      // liveness lock of its holder is held.
      await store.db
        .insertInto("night_runs")
        .values({
          holder: "machine-a:4242:abcd",
          night: "2026-11-05",
          started_at: iso(server - 10 * 60_000),
          lease_until: iso(server - 60_000),
        })
        .execute();
      const behind = server - 30 * 60_000;
      const release = await lockForCatalogImport(store, behind, {
        dataDir: d,
        files: ["c.yaml"],
        stamp: undefined,
        // Files that would change the sources in use (none yet): refused beside a live night.
        sources: () => [{ id: "test-agendas" } as unknown as Source],
        instead: "wait",
      });
      await release();
      expect(true).toBe(true);
    } finally {
      await store.close();
    }
  });
});
