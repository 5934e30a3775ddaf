/**
 * Review 8: group commit on PostgreSQL when two workers' batches lock the same sites in
 * opposite orders. PostgreSQL aborts one with a deadlock (40P01); that batch must run again
 * from the start, every write of it exactly once in the end, and none given back before its
 * transaction committed. A guard: it passes on main (f6eaf40, ea58685).
 */
import { afterAll, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { GroupCommit } from "../../src/store/group-commit.js";
import type { Tx } from "../../src/store/write-txn.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

it.skipIf(!factory)(
  "P9, P27: a batch that loses a deadlock runs again; each of its writes lands once",
  async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const stores: Store[] = [await openStore(loc), await openStore(loc)];
    try {
      const [s1, s2] = stores as [Store, Store];
      for (const site of ["x.gov", "y.gov"])
        await s1.db
          .insertInto("site_state")
          .values({ site, last_end_at: null, updated_at: "2026-11-05T06:00:00.000Z" })
          .execute();
      let runs = 0;
      /** Locks `site`, waits until the other batch has locked its first site, writes a row. */
      const write =
        (site: string, id: string, hold: Promise<void> | undefined, held?: () => void) =>
        async (tx: Tx) => {
          runs++;
          await tx
            .selectFrom("site_state")
            .select("site")
            .where("site", "=", site)
            .forUpdate()
            .execute();
          held?.();
          if (hold) await hold;
          await tx
            .insertInto("site_rules")
            .values({
              id,
              site,
              kind: "gap",
              value: "3000",
              reason: "review",
              at: "2026-11-05T06:00:00.000Z",
              by: "review",
              cleared_at: null,
              cleared_by: null,
            })
            .execute();
          return id;
        };
      let oneHeld!: () => void;
      let twoHeld!: () => void;
      const one = new Promise<void>((r) => {
        oneHeld = r;
      });
      const two = new Promise<void>((r) => {
        twoHeld = r;
      });
      const g1 = new GroupCommit(s1.db);
      const g2 = new GroupCommit(s2.db);
      // Worker 1: x then y; worker 2: y then x; each waits for the other's first lock.
      const all = Promise.all([
        g1.run(write("x.gov", "w1-x", two, oneHeld)),
        g1.run(write("y.gov", "w1-y", undefined)),
        g2.run(write("y.gov", "w2-y", one, twoHeld)),
        g2.run(write("x.gov", "w2-x", undefined)),
      ]);
      expect(await all).toEqual(["w1-x", "w1-y", "w2-y", "w2-x"]);
      const rows = await s1.db.selectFrom("site_rules").select("id").orderBy("id").execute();
      expect(rows.map((r) => r.id)).toEqual(["w1-x", "w1-y", "w2-x", "w2-y"]);
      // One of the batches ran again after the deadlock.
      expect(runs).toBeGreaterThan(4);
    } finally {
      for (const s of stores) await s.close();
    }
  },
  30_000,
);
