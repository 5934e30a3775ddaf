import { expect } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import type { ValidatorStore } from "../../src/night/reader.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/** A night store of one kind, with a way to mark a source not read on `night` (P24, P25). */
export type MarkedStore = {
  store: NightStore & ValidatorStore;
  mark(source: string, at: number): Promise<void>;
  close(): Promise<void>;
};
export type MarkedStoreMaker = { name: string; make(): Promise<MarkedStore> };

/** `source` marked not read on `night` by `by` ("said no in its rules"), as `nor mark` does. */
export function markNotRead(
  db: Store["db"],
  source: string,
  at: number,
  night: string,
  by: string,
): ReturnType<typeof markSource> {
  return markSource(db, { source, reading: false, reason: "said no in its rules", by, at, night });
}

/**
 * The night's stores a recheck test runs over alike: memory (the simulation's), SQLite and, with
 * NOR_TEST_POSTGRES_URL, PostgreSQL; each mark made not read on `night` by `by`. Call at a test
 * file's top level (storeFactories registers its cleanup).
 */
export function markedStores(night: string, by: string): MarkedStoreMaker[] {
  return [
    {
      name: "memory",
      make: async () => {
        const store = new MemoryNightStore();
        return {
          store,
          mark: async (source) => store.mark(source, false, night, "said no in its rules"),
          close: async () => {},
        };
      },
    },
    ...storeFactories().map(
      (f): MarkedStoreMaker => ({
        name: f.name,
        make: async () => {
          const s = await openStore(await f.fresh());
          return {
            store: new SqlNightStore(s.db),
            mark: async (source, at) => {
              const m = await markNotRead(s.db, source, at, night, by);
              expect(m.kind).not.toBe("unknown-source");
            },
            close: () => s.close(),
          };
        },
      }),
    ),
  ];
}
