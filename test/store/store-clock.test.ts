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
    const store = await openStore(await factory!.fresh());
    try {
      for (const skew of [600_000, -600_000, 0]) {
        const clock = await storeClock(store.db, skewed(skew));
        const r = await sql<{
          ms: string;
        }>`select floor(extract(epoch from clock_timestamp()) * 1000) as ms`.execute(store.db);
        const dbNow = Number(r.rows[0]?.ms);
        const mine = clock.now();
        // The server's clock, not the host's: the skew was ten minutes, and what is left is a
        // query's round trip, which a loaded machine can stretch (a minute of slack: still a
        // tenth of the skew, and no timing of the round trip itself).
        expect(Math.abs(mine - dbNow)).toBeLessThan(60_000);
        expect(Math.abs(clock.offsetMs + skew)).toBeLessThan(60_000);
      }
    } finally {
      await store.close();
    }
  });

  it("P9, P10: a second host whose clock runs a minute ahead waits the first host's gap", async () => {
    const store = await openStore(await factory!.fresh());
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
