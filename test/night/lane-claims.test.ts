import pg from "pg";
import { describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import { LANE_LEASE_MS } from "../../src/policy/constants.js";
import { openStore } from "../../src/store/db.js";
import { newHolderId } from "../../src/store/holder.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { type StoreFactory, sqliteFactory, storeFactories } from "../store/stores.js";

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

const factories = storeFactories();

describe("lane claims, one at a time and in a batch", () => {
  it("P9, P13: in memory, a batch claim takes the free, lapsed, finished and own lanes, never a live worker's", async () => {
    await contract(new MemoryNightStore());
  });
  for (const f of factories) {
    it(`P9, P13: on ${f.name}, a batch claim takes the free, lapsed, finished and own lanes, never a live worker's`, async () => {
      const store = await openStore(await f.migrated());
      try {
        await contract(new SqlNightStore(store.db));
      } finally {
        await store.close();
      }
    });
  }
});

// On SQLite, workers are processes and BEGIN IMMEDIATE serialises them (test/night/workers.test.ts);
// two connections in one process would only wait on each other's lock in one thread. On
// PostgreSQL a claim that lost a deadlock is run again (writeTxnRetried), so a deadlock shows as
// a second attempt: each `db.transaction()` call is one.
type Opened = Awaited<ReturnType<typeof openStore>>;
function countAttempts(store: Opened): { n: number } {
  const count = { n: 0 };
  const db = store.db as unknown as { transaction: () => unknown };
  const orig = db.transaction.bind(db);
  db.transaction = () => {
    count.n++;
    return orig();
  };
  return count;
}

async function lockWaiters(admin: pg.Client, n: number): Promise<void> {
  for (let i = 0; i < 250; i++) {
    const r = await admin.query(
      "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%night_lanes%'",
    );
    if ((r.rows[0] as { n: number }).n >= n) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`never saw ${n} claims waiting for a lock`);
}

const pgFactory = factories.find((x) => x.name === "postgres");
describe.skipIf(pgFactory === undefined)("lane claims by workers at once, on PostgreSQL", () => {
  it("P9, P13: two workers batch-claiming the same lanes at once each get a share, never the same lane, without a lost deadlock", async () => {
    const loc = await (pgFactory as StoreFactory).fresh();
    const a = await openStore(loc);
    const b = await openStore(loc);
    const ca = countAttempts(a);
    const cb = countAttempts(b);
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
      expect(ca.n + cb.n).toBe(10);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("P9, P13: different sets across a chunk boundary (more than 200 lanes) claim without a lost deadlock", async () => {
    const loc = await (pgFactory as StoreFactory).fresh();
    if (loc.kind !== "postgres") throw new Error("postgres only");
    const a = await openStore(loc);
    const b = await openStore(loc);
    const p = "p.org";
    const k = "q.org";
    const low = Array.from({ length: 199 }, (_, i) => `a${String(i).padStart(3, "0")}.org`);
    // p exists, its lease lapsed: free to claim.
    await new SqlNightStore(a.db).claimLanes(NIGHT, [p], DEAD, T - 10 * LANE_LEASE_MS);
    // A third session holds p a moment (another worker's claim or renewal touching it).
    const blocker = new pg.Client({ connectionString: loc.url });
    const admin = new pg.Client({ connectionString: loc.url });
    await blocker.connect();
    await admin.connect();
    const ca = countAttempts(a);
    const cb = countAttempts(b);
    try {
      await blocker.query("begin");
      await blocker.query("select * from night_lanes where night = $1 and site = $2 for update", [
        NIGHT,
        p,
      ]);
      // A (201 lanes at once): p in its first chunk, k in its second. B (another plan): {p, k}.
      const ra = new SqlNightStore(a.db).claimLanes(NIGHT, [...low, p, k], ME, T);
      await lockWaiters(admin, 1);
      const rb = new SqlNightStore(b.db).claimLanes(NIGHT, [p, k], THIRD, T);
      await lockWaiters(admin, 2);
      await blocker.query("commit");
      const [x, y] = await Promise.all([ra, rb]);
      for (const s of x) expect(y.has(s)).toBe(false);
      expect(new Set([...x, ...y])).toEqual(new Set([...low, p, k]));
      expect(ca.n + cb.n).toBe(2);
    } finally {
      await blocker.end().catch(() => {});
      await admin.end().catch(() => {});
      await a.close();
      await b.close();
    }
  });
});

/** What a store decides of a live holder of this host past its lease, and of a late finish. */
async function decisions(store: NightStore): Promise<Record<string, boolean>> {
  const live = newHolderId(() => "livehere"); // this process: alive
  // A worker of this host, alive, its lease lapsed a minute ago (a slow body, P9): still held.
  await store.claimLane(NIGHT, "slow.org", live, T - LANE_LEASE_MS - 60_000);
  // A lane taken over from a lapsed worker elsewhere; the first one, late, then finishes it.
  await store.claimLane(NIGHT, "taken.org", DEAD, T - 2 * LANE_LEASE_MS);
  await store.claimLane(NIGHT, "taken.org", LIVE, T);
  await store.finishLane(NIGHT, "taken.org", DEAD, T + 1);
  const got = await store.claimLanes(NIGHT, ["slow.org", "taken.org"], THIRD, T + 2);
  return { slow: got.has("slow.org"), taken: got.has("taken.org") };
}

describe("the memory store decides lanes as the SQL store does", () => {
  it("P9: a live holder of this host past its lease keeps its lane, and a late finish by a holder taken over from frees nothing", async () => {
    const f = sqliteFactory();
    try {
      const s = await openStore(await f.migrated());
      try {
        const inSql = await decisions(new SqlNightStore(s.db));
        expect(inSql).toEqual({ slow: false, taken: false });
        expect(await decisions(new MemoryNightStore())).toEqual(inSql);
      } finally {
        await s.close();
      }
    } finally {
      await f.cleanup();
    }
  });
});
