import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { storeClock } from "../../src/store/store-clock.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * P9, P10 across machines on one PostgreSQL: hosts whose clocks disagree still keep one site's
 * gap, because each reads the database server's time (its own clock plus a measured offset).
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

/** A host whose clock runs `skewMs` ahead of (or behind) the others. */
const skewed = (skewMs: number): Clock => ({
  now: () => Date.now() + skewMs,
  sleep: systemClock.sleep,
});

const GAP = 20_000;
function intent(path: string): SendIntent {
  return {
    night: "2026-11-05",
    key: `GET ${path}`,
    method: "GET",
    url: `https://www.a.gov${path}`,
    site: "a.gov",
    origin: "https://www.a.gov",
    purpose: "page",
    gapMs: GAP,
    replayAllowed: true,
  };
}

describe.skipIf(!factory)("the store's clock (PostgreSQL)", () => {
  it("P10: a host 10 minutes ahead or behind reads the database server's time", async () => {
    const store = await openStore(await factory!.migrated());
    try {
      const dbMs = async () => {
        const r = await sql<{
          ms: string;
        }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(store.db);
        return Number(r.rows[0]?.ms);
      };
      for (const skew of [600_000, -600_000, 0]) {
        const clock = await storeClock(store.db, skewed(skew));
        // The server's time read before and after the clock's: the clock's reading lies between
        // them, to within what the clock itself says it is sure of (half its sample's round
        // trip) and the server's whole milliseconds. An order, not a timing: however long the
        // reads take on a loaded machine, the bounds move with them. The host's skew (ten
        // minutes) is nowhere in it.
        const before = await dbMs();
        const mine = clock.now();
        const after = await dbMs();
        const slack = clock.uncertaintyMs / 2 + 2;
        expect(mine).toBeGreaterThanOrEqual(before - slack);
        expect(mine).toBeLessThanOrEqual(after + slack);
        // The offset undoes the skew (the server and this host share one machine's clock here).
        expect(Math.abs(clock.offsetMs + skew)).toBeLessThanOrEqual(slack);
      }
    } finally {
      await store.close();
    }
  });

  it("P9, P10: a second host whose clock runs a minute ahead waits the first host's gap", async () => {
    const store = await openStore(await factory!.migrated());
    try {
      const journal = new SqlJournal(store.db);
      const hostA = await storeClock(store.db, skewed(0));
      const hostB = await storeClock(store.db, skewed(60_000));
      const a = await journal.admit(intent("/1"), "host-a:1:a", () => hostA.now());
      expect(a.kind).toBe("go");
      if (a.kind !== "go") return;
      await journal.complete(a.id, "host-a:1:a", {
        endedAt: hostA.now(),
        status: 200,
        outcome: "ok",
        bytes: 10,
        final: true,
        closedEarly: false,
      });
      // Aligned, host B sees the end as just now: it waits the gap (P10).
      const b = await journal.admit(intent("/2"), "host-b:2:b", () => hostB.now());
      expect(b.kind).toBe("wait");
      // What host B would have done on its own clock: sent at once, 20 s too early.
      const raw = await journal.admit(intent("/2"), "host-b:2:b", () => Date.now() + 60_000);
      expect(raw.kind).toBe("go");
    } finally {
      await store.close();
    }
  });
});
