import { afterAll, describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import { LANE_LEASE_MS } from "../../src/policy/constants.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "../store/stores.js";

/**
 * A night's first lanes are claimed in one transaction (`claimLanes`), the later ones one at a
 * time (`claimLane`); both must decide alike on every store: a lane another live worker holds
 * is not taken (P9: two workers would send to one site at once), one whose holder's lease ran
 * out, a finished one, one's own and a new one are.
 */
const NIGHT = "2026-11-05";
const T = Date.parse("2026-11-05T23:00:00Z");
// Holders on another host: only their leases tell whether they are alive.
const LIVE = "elsewhere-a:101:live";
const DEAD = "elsewhere-b:102:dead";
const ME = "elsewhere-c:103:me";
const THIRD = "elsewhere-d:104:third";

async function contract(store: NightStore): Promise<void> {
  expect(await store.claimLane(NIGHT, "held.org", LIVE, T)).toBe(true);
  expect(await store.claimLane(NIGHT, "lapsed.org", DEAD, T - 3 * LANE_LEASE_MS)).toBe(true);
  expect(await store.claimLane(NIGHT, "finished.org", LIVE, T)).toBe(true);
  await store.finishLane(NIGHT, "finished.org", LIVE, T);
  expect(await store.claimLane(NIGHT, "mine.org", ME, T - 1_000)).toBe(true);

  const asked = ["held.org", "lapsed.org", "finished.org", "mine.org", "new.org", "new.org"];
  const got = await store.claimLanes(NIGHT, asked, ME, T);
  expect([...got].sort()).toEqual(["finished.org", "lapsed.org", "mine.org", "new.org"]);

  // What was claimed is held: a third worker gets none of it, nor the live one's lane.
  for (const site of ["held.org", ...got])
    expect(await store.claimLane(NIGHT, site, THIRD, T + 1)).toBe(false);
  const states = await store.laneStates(NIGHT, T + 1);
  for (const site of got) expect(states.get(site)).toBe("held");
  expect(states.get("held.org")).toBe("held");

  // More lanes than one statement's chunk, and another night's lanes apart from this one's.
  const many = Array.from({ length: 450 }, (_, i) => `site-${i}.org`);
  expect((await store.claimLanes(NIGHT, many, ME, T)).size).toBe(450);
  expect((await store.claimLanes(NIGHT, many, THIRD, T + 1)).size).toBe(0);
  expect((await store.claimLanes("2026-11-06", many, THIRD, T + 1)).size).toBe(450);
  expect((await store.claimLanes(NIGHT, [], ME, T)).size).toBe(0);
}

const factories: StoreFactory[] = [sqliteFactory()];
if (postgresUrl) factories.push(postgresFactory(postgresUrl));
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

describe("lane claims, one at a time and in a batch", () => {
  it("P9, P13: in memory, a batch claim takes the free, lapsed, finished and own lanes, never a live worker's", async () => {
    await contract(new MemoryNightStore());
  });
  for (const f of factories) {
    it(`P9, P13: on ${f.name}, a batch claim takes the free, lapsed, finished and own lanes, never a live worker's`, async () => {
      const store = await openStore(await f.fresh());
      try {
        await contract(new SqlNightStore(store.db));
      } finally {
        await store.close();
      }
    });
  }
});

// On SQLite, workers are processes and BEGIN IMMEDIATE serialises them (test/night/workers.test.ts);
// two connections in one process would only wait on each other's lock in one thread.
describe("lane claims by workers at once", () => {
  for (const f of factories.filter((x) => x.name === "postgres")) {
    it(`P9, P13: on ${f.name}, two workers batch-claiming overlapping lanes at once each get a share and never the same lane`, async () => {
      const loc = await f.fresh();
      const a = await openStore(loc);
      const b = await openStore(loc);
      try {
        for (let round = 0; round < 5; round++) {
          const night = `2026-11-${String(10 + round).padStart(2, "0")}`;
          const sites = Array.from({ length: 300 }, (_, i) => `s${i}.org`);
          const [x, y] = await Promise.all([
            new SqlNightStore(a.db).claimLanes(night, sites, ME, T),
            new SqlNightStore(b.db).claimLanes(night, [...sites].reverse(), THIRD, T),
          ]);
          expect(x.size + y.size).toBe(300);
          for (const s of x) expect(y.has(s)).toBe(false);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });
  }
});
