import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { type StoreFactory, storeFactories } from "./stores.js";

/**
 * Migration 028 through a link written anew (night-records.ts `relink`): the stored record takes
 * the new id and keeps when it was first seen; it keeps when it was last brought up to date too,
 * and says it changed when the row under the new link shows another title, date or kind (a bid
 * retitled "CANCELLED" the night its site moved to https). Before, the row the new link made
 * kept no `changed_at`: the retitle went unsaid, an earlier one was forgotten.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;
const URL = "https://x.gov/list";
const endedOn = (i: number) => T0 + i * DAY + 500;
const iso = (i: number) => new Date(endedOn(i)).toISOString();

type Row = { id: string; title: string; date?: string; kind?: string };

/** Each night in turn, the list committed; after each, every record's times. */
async function timesAfter(factory: StoreFactory, nights: readonly Row[][]) {
  const s = await openStore(await factory.migrated());
  const store = new SqlNightStore(s.db);
  const out: Record<string, { first: string; changed: string | null }>[] = [];
  try {
    await store.syncSources([{ id: "x", government: "g", url: URL, site: "x.gov" }], T0);
    for (const [i, rows] of nights.entries()) {
      const n = addDays(NIGHT, i);
      await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 6 * 3600_000);
      const r: SourceResult = {
        sourceId: "x",
        outcome: { kind: "ok", url: URL },
        way: { used: { access: "page", url: URL }, skipped: [] },
        records: rows.map((x) => ({ ...x, url: x.id })),
        pageRead: {
          url: URL,
          key: `k${i}`,
          records: rows.length,
          ids: rows.map((x) => x.id),
        },
        validators: [],
        flags: [],
        startedAt: T0 + i * DAY,
        endedAt: endedOn(i),
      };
      await store.commit(n, r);
      const got = await s.db
        .selectFrom("records")
        .select(["record_id", "first_seen_at", "changed_at"])
        .where("source_id", "=", "x")
        .orderBy("record_id")
        .execute();
      out.push(
        Object.fromEntries(
          got.map((g) => [g.record_id, { first: g.first_seen_at, changed: g.changed_at }]),
        ),
      );
    }
  } finally {
    await s.close();
  }
  return out;
}

describe.each(factories)("records.changed_at through a link written anew ($name)", (factory) => {
  it("P6: retitled the night its link was written anew (an https move): it says it changed", async () => {
    const out = await timesAfter(factory, [
      [
        { id: "http://x.gov/a.pdf", title: "Bid 12", date: "2026-11-20" },
        { id: "http://x.gov/b.pdf", title: "Bid 13", date: "2026-11-21" },
      ],
      [
        { id: "https://x.gov/a.pdf", title: "CANCELLED: Bid 12", date: "2026-11-20" },
        { id: "https://x.gov/b.pdf", title: "Bid 13", date: "2026-11-21" },
      ],
    ]);
    expect(out[1]).toEqual({
      "https://x.gov/a.pdf": { first: iso(0), changed: iso(1) },
      "https://x.gov/b.pdf": { first: iso(0), changed: null },
    });
  });

  it("P6: retitled, then its link written anew: it keeps when it changed", async () => {
    const out = await timesAfter(factory, [
      [{ id: "http://x.gov/a.pdf", title: "Bid 12", date: "2026-11-20" }],
      [{ id: "http://x.gov/a.pdf", title: "CANCELLED: Bid 12", date: "2026-11-20" }],
      [{ id: "https://x.gov/a.pdf", title: "CANCELLED: Bid 12", date: "2026-11-20" }],
    ]);
    expect(out[1]).toEqual({ "http://x.gov/a.pdf": { first: iso(0), changed: iso(1) } });
    expect(out[2]).toEqual({ "https://x.gov/a.pdf": { first: iso(0), changed: iso(1) } });
  });

  it("P6: files moved, one of them of another kind now: that one says it changed, the others not", async () => {
    const out = await timesAfter(factory, [
      [
        { id: "https://x.gov/old/1.pdf", title: "Meeting", date: "2026-11-01", kind: "agendas" },
        { id: "https://x.gov/old/2.pdf", title: "Meeting", date: "2026-11-02", kind: "agendas" },
        { id: "https://x.gov/old/3.pdf", title: "Meeting", date: "2026-11-03", kind: "agendas" },
      ],
      [
        { id: "https://x.gov/new/1.pdf", title: "Meeting", date: "2026-11-01", kind: "minutes" },
        { id: "https://x.gov/new/2.pdf", title: "Meeting", date: "2026-11-02", kind: "agendas" },
        { id: "https://x.gov/new/3.pdf", title: "Meeting", date: "2026-11-03", kind: "agendas" },
      ],
    ]);
    expect(out[1]).toEqual({
      "https://x.gov/new/1.pdf": { first: iso(0), changed: iso(1) },
      "https://x.gov/new/2.pdf": { first: iso(0), changed: null },
      "https://x.gov/new/3.pdf": { first: iso(0), changed: null },
    });
  });
});
