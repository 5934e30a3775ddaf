import { afterAll, describe, expect, it } from "vitest";
import { nightsLiveInStore } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { STALE_MS } from "../../src/store/holder.js";
import { HOLDER_ALIVE_CLASS, holderKey } from "../../src/store/holder-liveness.js";
import { markNightRun } from "../../src/store/night-runs.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * Review (revfixb): another machine's night whose process is frozen (Ctrl-Z in a terminal,
 * SIGSTOP) keeps its connections up, so its liveness lock stays held (holder-liveness.ts), and
 * the store's word is that it lives, as the journal and the lanes take it, however long it is
 * frozen. Its `night_runs` row was read only while its lease was less than 10 minutes
 * (STALE_MS) past, and deleted by the next night's mark after that: frozen 11 minutes, the
 * night was gone from the store and a catalog import went ahead beside it, its sources changed
 * under it before it was woken.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

describe.skipIf(factory === undefined)("review(revfixb): a frozen night in night_runs", () => {
  it("P13, P26: a night frozen past its lease and past STALE_MS, its liveness lock held, is still under way for every other machine, and its row is not deleted by another night's mark", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error("postgres expected");
    const store = await openStore(loc);
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: loc.url });
    await client.connect();
    try {
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const holder = "machine-a:4242:frozen";
      await client.query(
        "insert into night_runs (holder, night, started_at, lease_until) values ($1, $2, $3, $4)",
        [holder, "2026-11-05", iso(now - 2 * STALE_MS), iso(now - STALE_MS - 60_000)],
      );
      // Frozen: its connection up, its liveness lock held.
      await client.query("select pg_advisory_lock_shared($1::int4, $2::int4)", [
        HOLDER_ALIVE_CLASS,
        holderKey(holder),
      ]);
      expect(await nightsLiveInStore(store.db, now)).toEqual(["2026-11-05"]);
      // Another process of the same night marks itself: the frozen one's row stays.
      await markNightRun(store.db, "machine-b:1:new", "2026-11-05", now);
      const rows = await client.query("select holder from night_runs order by holder");
      expect(rows.rows.map((r) => r.holder)).toEqual(["machine-a:4242:frozen", "machine-b:1:new"]);
      // Killed at last (its lock gone): its row is dead, and cleared by the next mark.
      await client.query("select pg_advisory_unlock_shared($1::int4, $2::int4)", [
        HOLDER_ALIVE_CLASS,
        holderKey(holder),
      ]);
      await markNightRun(store.db, "machine-b:1:new", "2026-11-05", now);
      const after = await client.query("select holder from night_runs order by holder");
      expect(after.rows.map((r) => r.holder)).toEqual(["machine-b:1:new"]);
    } finally {
      await client.end();
      await store.close();
    }
  });
});
