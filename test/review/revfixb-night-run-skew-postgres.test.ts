import { afterAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { markNightInStore } from "../../src/night/night-run-mark.js";
import { nightsLiveInStore } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { NIGHT_RUN_LEASE_MS } from "../../src/store/night-runs.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * Review (revfixb): on PostgreSQL every time machines judge each other by is the database
 * server's (store-clock.ts: "the host's wall clock is not read at all"), lanes' leases included.
 * A night's row in `night_runs` was leased by its own host's clock: a machine whose clock runs
 * 30 minutes ahead, its night killed (its liveness lock gone with its process), left a row every
 * other machine read as live for half an hour: `nor catalog import` and `nor start`'s scheduled
 * night refused, a killed night holding them back far past the minute the docs promise.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

describe.skipIf(factory === undefined)("review(revfixb): night_runs under a skewed clock", () => {
  it("P13, P26: a night killed on a machine whose clock runs 30 minutes ahead holds nothing back once its lease has run out by the store's time", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    // Machine A: its clock 30 minutes ahead. Its night is marked, then it is killed: its store's
    // connections (its liveness lock with them) go, its row stays.
    const ahead: Clock = { now: () => Date.now() + 30 * 60_000, sleep: systemClock.sleep };
    const a = await openStore(loc);
    const mark = await markNightInStore(a.db, "2026-11-05", ahead, randomIds);
    await a.close();
    // (Its heartbeat stopped; its row's delete fails on the closed store, as a kill leaves it.)
    await mark.end();
    // (Named as another machine's holder: this test's own process lives on this host.)
    const b0 = await openStore(loc);
    await b0.db.updateTable("night_runs").set({ holder: "machine-a:4242:abcd" }).execute();
    await b0.close();
    // Machine B, its clock right, reads it by the store's time: once its lease has run out
    // (within a minute, not 30), it holds nothing back.
    const b = await openStore(loc);
    try {
      const r = await sql<{
        ms: string | number;
      }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(b.db);
      const server = Number(r.rows[0]?.ms);
      const rows = await b.db.selectFrom("night_runs").select("lease_until").execute();
      expect(rows).toHaveLength(1);
      const until = Date.parse(rows[0]?.lease_until ?? "");
      expect(until).toBeLessThanOrEqual(server + NIGHT_RUN_LEASE_MS);
      // A minute past it by the store's time (so the test need not wait): not live.
      await b.db
        .updateTable("night_runs")
        .set({ lease_until: new Date(until - NIGHT_RUN_LEASE_MS - 1).toISOString() })
        .execute();
      expect(await nightsLiveInStore(b.db, Date.now())).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
