import { describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import type { MoveChange, SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * P11: a source's catalog URL that moved permanently is kept by the store with the source's
 * night (`commit`'s `moves`), read back by `histories` as `moved`, and forgotten the same way,
 * by the source and its catalog URL: the same over memory, SQLite and PostgreSQL.
 */
const factories = storeFactories();

type Maker = { name: string; make(): Promise<{ store: NightStore; close(): Promise<void> }> };
const makers: Maker[] = [
  { name: "memory", make: async () => ({ store: new MemoryNightStore(), close: async () => {} }) },
  ...factories.map(
    (f): Maker => ({
      name: f.name,
      make: async () => {
        const s = await openStore(await f.fresh());
        return { store: new SqlNightStore(s.db), close: () => s.close() };
      },
    }),
  ),
];

const T0 = Date.parse("2026-11-05T06:00:00Z");
const OLD = "http://a.gov/agendas.rss";
const NEW = "https://a.gov/feeds/agendas.xml";

function result(sourceId: string, moves: MoveChange[]): SourceResult {
  return {
    sourceId,
    outcome: { kind: "ok", url: NEW },
    records: [],
    validators: [],
    moves,
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
  };
}

describe.each(makers)("source moves ($name)", (maker) => {
  it("P11: a move committed is read back by the source and its catalog URL; a forget removes only it", async () => {
    const { store, close } = await maker.make();
    try {
      await store.openNight("2026-11-05", T0, T0 + 3_600_000);
      await store.commit(
        "2026-11-05",
        result("a.gov/0", [
          { kind: "remember", from: OLD, to: NEW },
          { kind: "remember", from: "http://a.gov/b.rss", to: "https://a.gov/b.xml" },
        ]),
      );
      await store.commit("2026-11-05", result("a.gov/1", []));
      let h = await store.histories("2026-11-06", ["a.gov/0", "a.gov/1"]);
      expect(h.get("a.gov/0")?.moved).toEqual([
        { from: OLD, to: NEW, night: "2026-11-05" },
        { from: "http://a.gov/b.rss", to: "https://a.gov/b.xml", night: "2026-11-05" },
      ]);
      expect(h.get("a.gov/1")?.moved).toBeUndefined();
      await store.openNight("2026-11-06", T0 + 86_400_000, T0 + 90_000_000);
      await store.commit(
        "2026-11-06",
        result("a.gov/0", [{ kind: "forget", from: OLD, to: NEW, why: "gone (404)" }]),
      );
      h = await store.histories("2026-11-07", ["a.gov/0"]);
      expect(h.get("a.gov/0")?.moved).toEqual([
        { from: "http://a.gov/b.rss", to: "https://a.gov/b.xml", night: "2026-11-05" },
      ]);
      // Remembered again (a move seen anew) takes the new target and night.
      await store.openNight("2026-11-07", T0 + 2 * 86_400_000, T0 + 2 * 90_000_000);
      await store.commit(
        "2026-11-07",
        result("a.gov/0", [
          { kind: "remember", from: "http://a.gov/b.rss", to: "https://a.gov/c.xml" },
        ]),
      );
      h = await store.histories("2026-11-08", ["a.gov/0"]);
      expect(h.get("a.gov/0")?.moved).toEqual([
        { from: "http://a.gov/b.rss", to: "https://a.gov/c.xml", night: "2026-11-07" },
      ]);
    } finally {
      await close();
    }
  });
});
