import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { storeFactories } from "./stores.js";

/**
 * The night's other writes that used to commit alone (a robots.txt answer stored, a lane's end)
 * join the journal's group commit: one transaction, one fsync, with the
 * writes beside them, and each is still durable when its call resolves.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T = Date.parse("2026-11-05T23:00:00Z");
const ME = "elsewhere:1:me";

describe.each(factories)("writes in the journal's group commit on $name", (factory) => {
  it("P16, P27: robots.txt answers, and lane ends, arriving together share one commit, and are stored when their calls resolve", async () => {
    const loc = await factory.fresh();
    const store = await openStore(loc);
    const other = await openStore(loc);
    try {
      const journal = new SqlJournal(store.db);
      const robots = new SqlRobotsCache(store.db, journal.group);
      const nights = new SqlNightStore(store.db, journal.group);
      const claimed = await nights.claimLanes(NIGHT, ["a.org", "b.org"], ME, T);
      expect([...claimed].sort()).toEqual(["a.org", "b.org"]);
      const before = { ...journal.group.stats };
      await Promise.all(
        ["a.org", "b.org", "c.org"].map((host) =>
          robots.put({
            origin: `https://${host}`,
            fetchedAt: T,
            state: "rules",
            status: 200,
            body: "User-agent: *\nDisallow: /private/\n",
            night: NIGHT,
          }),
        ),
      );
      expect(journal.group.stats.batches - before.batches).toBe(1);
      expect(journal.group.stats.writes - before.writes).toBe(3);

      // Read back through another connection: committed, not only visible to the writer.
      const seen = new SqlRobotsCache(other.db);
      for (const host of ["a.org", "b.org", "c.org"])
        expect((await seen.get(`https://${host}`))?.body).toContain("Disallow: /private/");

      const mid = { ...journal.group.stats };
      await Promise.all([
        nights.finishLane(NIGHT, "a.org", ME, T + 1),
        nights.finishLane(NIGHT, "b.org", ME, T + 1),
      ]);
      expect(journal.group.stats.batches - mid.batches).toBe(1);
      const states = await new SqlNightStore(other.db).laneStates(NIGHT, T + 2);
      expect(states.get("a.org")).toBe("done");
      expect(states.get("b.org")).toBe("done");
    } finally {
      await other.close();
      await store.close();
    }
  });
});
