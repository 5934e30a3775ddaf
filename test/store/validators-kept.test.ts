import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * P12: the validators a source's answer carried are kept with its outcome: the same ones again
 * change nothing (no write), new ones replace them, and a validator that goes away is gone.
 */
const factories = storeFactories();

const URL_ = "https://a.example/agendas";
const T = Date.UTC(2026, 10, 5, 6, 0, 0);

function result(
  night: number,
  v: { etag?: string; lastModified?: string },
  id = "a.example/0",
): SourceResult {
  return {
    sourceId: id,
    outcome: { kind: "ok" },
    records: [],
    validators: [{ url: URL_, ...v }],
    flags: [],
    startedAt: T + night * 86_400_000,
    endedAt: T + night * 86_400_000 + 500,
  };
}

describe.each(factories)("validators kept ($name)", (factory) => {
  it("P12: the same again, new ones, and one gone", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const ns = new SqlNightStore(store.db);
      const nights = ["2026-11-05", "2026-11-06", "2026-11-07", "2026-11-08"];
      for (const [i, n] of nights.entries()) {
        const at = T + i * 86_400_000;
        await ns.openNight(n, at, at + 3_600_000);
      }
      await ns.commit(nights[0] as string, result(0, { etag: '"v1"', lastModified: "Mon" }));
      expect(await ns.get(URL_)).toEqual({ etag: '"v1"', lastModified: "Mon" });
      await ns.commit(nights[1] as string, result(1, { etag: '"v1"', lastModified: "Mon" }));
      expect(await ns.get(URL_)).toEqual({ etag: '"v1"', lastModified: "Mon" });
      await ns.commit(nights[2] as string, result(2, { etag: '"v2"', lastModified: "Mon" }));
      expect(await ns.get(URL_)).toEqual({ etag: '"v2"', lastModified: "Mon" });
      await ns.commit(nights[3] as string, result(3, { etag: '"v2"' }));
      expect(await ns.get(URL_)).toEqual({ etag: '"v2"' });
    } finally {
      await store.close();
    }
  });
});
