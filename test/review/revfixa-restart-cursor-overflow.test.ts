import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { restartBackfill } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * revfixa (review of fixa): a `nor backfill restart` of a backfill that gave up on an older page
 * goes on from that page (its cursor kept) and leaves the source's overflow as it was
 * (store/backfill.ts restartBackfill clears the overflow only when it restarts from page 1).
 * fixa made the night's save of the overflow hold only while the restarts it read are the
 * store's: so a restart that did not touch the overflow, made while a night reads it, now drops
 * what the night read of it. The overflow stays at the page it was at, and the next night asks
 * again the pages this night read (or reads again an overflow this night finished); an overflow
 * begun tonight is lost, the new records past where it stopped never read.
 */
const factories = storeFactories();
const N1 = "2026-11-05";
const N2 = "2026-11-06";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const T1 = T0 + 86_400_000;
const WHO = { by: "dana", at: Date.parse("2026-11-06T07:00:00Z") };
const GAVE_UP = {
  done: true,
  pagesRead: 12,
  cursor: { url: "https://a.gov/list?page=40" },
  ended: { why: "gave-up" as const, url: "https://a.gov/list?page=40", reason: "error, HTTP 400" },
};

function result(r: Partial<SourceResult>, at: number): SourceResult {
  return {
    sourceId: "a.gov/0",
    outcome: { kind: "ok", url: "https://a.gov/list" },
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 500,
    ...r,
  };
}

type Tonight = { name: string; first?: string; saved: NonNullable<SourceResult["overflow"]> };
const CASES: Tonight[] = [
  {
    name: "read on from page 3 to page 5",
    first: "https://a.gov/list?page=3",
    saved: { pending: { since: N1, cursor: { url: "https://a.gov/list?page=5" } } },
  },
  {
    name: "read to its end",
    first: "https://a.gov/list?page=3",
    saved: { done: true },
  },
  {
    name: "begun tonight, left at page 4",
    saved: { pending: { since: N2, cursor: { url: "https://a.gov/list?page=4" } } },
  },
];

describe.each(factories)(
  "revfixa: a restart from the page given up on, beside a night's overflow ($name)",
  (f) => {
    it.each(CASES)(
      "P7, P24: a backfill restart that keeps its cursor (the overflow untouched), made while the night reads the source, leaves the night's save of the overflow standing: $name",
      async (c) => {
        const loc = await f.fresh();
        const night = await openStore(loc);
        const person = await openStore(loc);
        try {
          const store = new SqlNightStore(night.db);
          await store.syncSources(
            [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
            T0,
          );
          await store.openNight(N1, T0, T0 + 6 * 3600_000);
          await store.commit(
            N1,
            result(
              {
                backfill: GAVE_UP,
                ...(c.first
                  ? { overflow: { pending: { since: N1, cursor: { url: c.first } } } }
                  : {}),
              },
              T0,
            ),
          );
          await store.openNight(N2, T1, T1 + 6 * 3600_000);
          const read = (await store.histories(N2, ["a.gov/0"])).get("a.gov/0");
          expect(read?.backfill?.ended?.why).toBe("gave-up");
          expect(read?.overflow?.cursor.url).toBe(c.first);
          // The person restarts it (another process): from page 40, the overflow left as it was.
          expect(await restartBackfill(person.db, "a.gov/0", WHO)).toMatchObject({
            kind: "restarted",
            from: "https://a.gov/list?page=40",
          });
          const between = (await new SqlNightStore(person.db).histories(N2, ["a.gov/0"])).get(
            "a.gov/0",
          );
          expect(between?.overflow?.cursor.url).toBe(c.first);
          // The night saves what it read of the overflow (its backfill, ended, unchanged).
          await store.commit(N2, result({ overflow: c.saved }, T1));
          const now = (await new SqlNightStore(person.db).histories("2026-11-07", ["a.gov/0"])).get(
            "a.gov/0",
          );
          // The restart holds ...
          expect(now?.backfill).toMatchObject({
            done: false,
            cursor: { url: "https://a.gov/list?page=40" },
            restarted: { count: 1, by: "dana" },
          });
          // ... and so does what the night read of the overflow, which the restart left alone.
          expect(now?.overflow?.cursor.url).toBe(
            "pending" in c.saved ? c.saved.pending.cursor.url : undefined,
          );
        } finally {
          await person.close();
          await night.close();
        }
      },
    );

    it("P7, P24: a backfill restart from page 1 (it ended at its last page), made while the night reads the source, still drops an overflow the night began: the backfill reads every page again", async () => {
      const loc = await f.fresh();
      const night = await openStore(loc);
      const person = await openStore(loc);
      try {
        const store = new SqlNightStore(night.db);
        await store.syncSources(
          [{ id: "a.gov/0", government: "g", url: "https://a.gov/list", site: "a.gov" }],
          T0,
        );
        await store.openNight(N1, T0, T0 + 6 * 3600_000);
        const last = { why: "last-page" as const, url: "https://a.gov/list?page=9" };
        await store.commit(N1, result({ backfill: { done: true, pagesRead: 9, ended: last } }, T0));
        await store.openNight(N2, T1, T1 + 6 * 3600_000);
        expect((await store.histories(N2, ["a.gov/0"])).get("a.gov/0")?.overflow).toBeUndefined();
        expect(await restartBackfill(person.db, "a.gov/0", WHO)).toMatchObject({
          kind: "restarted",
        });
        await store.commit(
          N2,
          result(
            { overflow: { pending: { since: N2, cursor: { url: "https://a.gov/list?page=4" } } } },
            T1,
          ),
        );
        const now = (await new SqlNightStore(person.db).histories("2026-11-07", ["a.gov/0"])).get(
          "a.gov/0",
        );
        expect(now?.backfill).toMatchObject({ done: false, restarted: { count: 1 } });
        expect(now?.backfill?.cursor).toBeUndefined();
        expect(now?.overflow).toBeUndefined();
      } finally {
        await person.close();
        await night.close();
      }
    });
  },
);
