import { describe, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore, type Store } from "../../src/store/db.js";
import { GroupCommit } from "../../src/store/group-commit.js";
import { SqlJournal } from "../../src/store/journal.js";
import { storeFactories } from "./stores.js";

/**
 * Group commit (P27, journal first): writes arriving together share one transaction, each in its
 * savepoint; none is given back before that transaction committed, and what one batch decides
 * is exactly what one-at-a-time transactions in the same order would have decided.
 */
const factories = storeFactories();

const T0 = Date.parse("2026-11-05T06:00:00Z");
const ME = "test-host:1:me";

function intent(url: string): SendIntent {
  const u = new URL(url);
  return {
    night: "2026-11-05",
    key: `GET ${url}`,
    method: "GET",
    url,
    site: u.hostname,
    origin: u.origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
  };
}

async function logRows(store: Store): Promise<{ url: string; outcome: string }[]> {
  return store.db.selectFrom("request_log").select(["url", "outcome"]).orderBy("id").execute();
}

describe.each(factories)("group commit on $name", (factory) => {
  it("P27: ten writes in one turn share one transaction; each resolves after it committed, in order", async () => {
    const loc = await factory.fresh();
    const store = await openStore(loc);
    try {
      const gc = new GroupCommit(store.db);
      const seen: number[] = [];
      const writes = Array.from({ length: 10 }, (_, i) =>
        gc.run(async (tx) => {
          // Each write sees the ones before it in the batch.
          const before = await tx.selectFrom("site_state").select("site").execute();
          seen.push(before.length);
          await tx
            .insertInto("site_state")
            .values({
              site: `s${i}.gov`,
              last_end_at: null,
              updated_at: "2026-11-05T06:00:00.000Z",
            })
            .execute();
          return i;
        }),
      );
      expect(await Promise.all(writes)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(gc.stats).toEqual({ batches: 1, writes: 10, alone: 0 });
      // Committed: a second connection to the same store reads all ten.
      const other = await openStore(loc);
      try {
        const n = await other.db.selectFrom("site_state").select("site").execute();
        expect(n).toHaveLength(10);
      } finally {
        await other.close();
      }
    } finally {
      await store.close();
    }
  });

  it("a write that throws fails alone: its batch runs again one write at a time, and the rest commits", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const gc = new GroupCommit(store.db);
      const row = (site: string) =>
        gc.run((tx) =>
          tx
            .insertInto("site_state")
            .values({ site, last_end_at: null, updated_at: "2026-11-05T06:00:00.000Z" })
            .execute(),
        );
      const a = row("a.gov");
      const bad = gc.run(async (tx) => {
        await tx
          .insertInto("site_state")
          .values({ site: "half.gov", last_end_at: null, updated_at: "x" })
          .execute();
        throw new Error("a bug after half a write");
      });
      const dup = row("a.gov"); // a primary-key violation inside the batch
      const c = row("c.gov");
      await expect(a).resolves.toBeDefined();
      await expect(bad).rejects.toThrow("a bug after half a write");
      await expect(dup).rejects.toThrow();
      await expect(c).resolves.toBeDefined();
      const sites = await store.db
        .selectFrom("site_state")
        .select("site")
        .orderBy("site")
        .execute();
      expect(sites.map((s) => s.site)).toEqual(["a.gov", "c.gov"]);
      // The batch of four was rolled back once; a and c then committed in their own.
      expect(gc.stats).toEqual({ batches: 2, writes: 2, alone: 1 });
    } finally {
      await store.close();
    }
  });

  it("P9, P10: eight admissions to one site in one batch: one goes, the rest wait for its lease", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const journal = new SqlJournal(store.db);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          journal.admit(intent(`https://www.a.gov/${i}`), `${ME}${i}`, T0),
        ),
      );
      expect(answers.filter((a) => a.kind === "go")).toHaveLength(1);
      expect(answers.filter((a) => a.kind === "wait")).toHaveLength(7);
      expect(journal.group.stats.batches).toBe(1);
      expect(await logRows(store)).toEqual([{ url: "https://www.a.gov/0", outcome: "in-flight" }]);
      // Eight sites at once: all go, in one transaction.
      const many = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          journal.admit(intent(`https://www.s${i}.gov/`), ME, T0),
        ),
      );
      expect(many.every((a) => a.kind === "go")).toBe(true);
      expect(journal.group.stats).toEqual({ batches: 2, writes: 16, alone: 0 });
    } finally {
      await store.close();
    }
  });
});
