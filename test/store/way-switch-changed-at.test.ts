import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { type StoreFactory, storeFactories } from "./stores.js";

/**
 * docs/catalog.md "One record across ways in": a record read through another way in than the
 * source's last read list is the record the source holds, and what the other way writes
 * otherwise (its title in capitals, a date with or without its time) is no change a feed
 * announces (records.changed_at kept, migration 028). That holds however the two ways' records
 * are matched: by the across-ways rule, by a link written another way (link-twins.ts, which
 * takes them on a night that is not the way's first read: the api back), or by the same id.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;
const API = "https://x.gov/api/events";
const PAGE = "https://x.gov/meetings";

type Row = { id: string; title: string; date?: string };
type Night = { url: string; rows: Row[] };

async function committed(factory: StoreFactory, nights: readonly Night[]) {
  const s = await openStore(await factory.migrated());
  const store = new SqlNightStore(s.db);
  const out: {
    counts: unknown;
    rows: Record<string, { title: string; changed: string | null }>;
  }[] = [];
  try {
    await store.syncSources([{ id: "x", government: "g", url: PAGE, site: "x.gov" }], T0);
    for (const [i, night] of nights.entries()) {
      const n = addDays(NIGHT, i);
      await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 6 * 3600_000);
      const r: SourceResult = {
        sourceId: "x",
        outcome: { kind: "ok", url: night.url },
        way: { used: { access: night.url === API ? "api" : "page", url: night.url }, skipped: [] },
        records: night.rows.map((x) => ({ ...x, url: x.id })),
        validators: [],
        flags: [],
        startedAt: T0 + i * DAY,
        endedAt: T0 + i * DAY + 500,
      };
      const counts = await store.commit(n, r);
      const got = await s.db
        .selectFrom("records")
        .select(["record_id", "title", "changed_at"])
        .where("source_id", "=", "x")
        .orderBy("record_id")
        .execute();
      out.push({
        counts,
        rows: Object.fromEntries(
          got.map((g) => [g.record_id, { title: g.title, changed: g.changed_at }]),
        ),
      });
    }
  } finally {
    await s.close();
  }
  return out;
}

describe.each(factories)("one record across ways in, and records.changed_at ($name)", (factory) => {
  it("P4, P6: the api back lists the page's record under its link written another way: one record, not said changed", async () => {
    const out = await committed(factory, [
      {
        url: API,
        rows: [{ id: "http://x.gov/m/1", title: "Council Meeting", date: "2026-11-02" }],
      },
      // The api failed: the page, read for the first time, writes the link https://www.
      {
        url: PAGE,
        rows: [{ id: "https://www.x.gov/m/1", title: "COUNCIL MEETING", date: "2026-11-02" }],
      },
      // The api back (read within the horizon: not its first read).
      {
        url: API,
        rows: [{ id: "http://x.gov/m/1", title: "Council Meeting", date: "2026-11-02" }],
      },
    ]);
    expect(out[1]?.rows).toEqual({
      "https://www.x.gov/m/1": { title: "COUNCIL MEETING", changed: null },
    });
    expect(out[2]?.rows).toEqual({
      "http://x.gov/m/1": { title: "Council Meeting", changed: null },
    });
    expect(out[2]?.counts).toEqual({ newRecords: 0 });
  });

  it("P4, P6: a page whose ids are the api's (one link) writes its titles otherwise: brought up to date, not said changed", async () => {
    const out = await committed(factory, [
      {
        url: API,
        rows: [{ id: "https://x.gov/m/1", title: "Council Meeting", date: "2026-11-02" }],
      },
      {
        url: PAGE,
        rows: [{ id: "https://x.gov/m/1", title: "COUNCIL MEETING", date: "2026-11-02" }],
      },
      {
        url: API,
        rows: [{ id: "https://x.gov/m/1", title: "Council Meeting", date: "2026-11-02" }],
      },
    ]);
    expect(out[1]?.rows).toEqual({
      "https://x.gov/m/1": { title: "COUNCIL MEETING", changed: null },
    });
    expect(out[2]?.rows).toEqual({
      "https://x.gov/m/1": { title: "Council Meeting", changed: null },
    });
  });
});
