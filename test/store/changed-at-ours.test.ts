import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { type StoreFactory, storeFactories } from "./stores.js";

/**
 * records.changed_at (migration 028) says when the site changed what a record shows, so a
 * feed's entry says it was updated. A recipe mended (titles, kinds) used to mark every record
 * of its sources changed the next night, though no site changed anything: a 304's copy, read
 * again because the reading changed (night/page-key.ts: the key holds the way and the readers'
 * code), brought every record up to date with `changed_at` set, and every feed entry of those
 * sources said "updated" at once. The rule: a record brought up to date from the copy of a page
 * the site answered 304 for (the night's outcome `unchanged`: the page is the one we read
 * before) changed only by our reading of it; it is brought up to date, `changed_at` kept as it
 * was. One read from a full answer (200), the site's page as it is now, changed on the site
 * (we cannot tell its retitle from our reading, and never hide a site's change). Records of a
 * list's older pages read that night (a backfill, P7, asked in full) are judged as full answers.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;
const URL = "https://x.gov/list";
const endedOn = (i: number) => T0 + i * DAY + 500;
const iso = (i: number) => new Date(endedOn(i)).toISOString();

type Row = { id: string; title: string; date?: string; kind?: string };
type Night = { outcome: "ok" | "unchanged"; rows: Row[]; olderFrom?: number };

async function committed(factory: StoreFactory, nights: readonly Night[]) {
  const s = await openStore(await factory.migrated());
  const store = new SqlNightStore(s.db);
  const out: Record<string, { title: string; kind: string | null; changed: string | null }>[] = [];
  try {
    await store.syncSources([{ id: "x", government: "g", url: URL, site: "x.gov" }], T0);
    for (const [i, night] of nights.entries()) {
      const n = addDays(NIGHT, i);
      await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 6 * 3600_000);
      const r: SourceResult = {
        sourceId: "x",
        outcome: { kind: night.outcome, url: URL },
        way: { used: { access: "page", url: URL }, skipped: [] },
        records: night.rows.map((x) => ({ ...x, url: x.id })),
        ...(night.olderFrom !== undefined ? { olderFrom: night.olderFrom } : {}),
        validators: [],
        flags: [],
        startedAt: T0 + i * DAY,
        endedAt: endedOn(i),
      };
      await store.commit(n, r);
      const got = await s.db
        .selectFrom("records")
        .select(["record_id", "title", "kind", "changed_at"])
        .where("source_id", "=", "x")
        .orderBy("record_id")
        .execute();
      out.push(
        Object.fromEntries(
          got.map((g) => [g.record_id, { title: g.title, kind: g.kind, changed: g.changed_at }]),
        ),
      );
    }
  } finally {
    await s.close();
  }
  return out;
}

describe.each(factories)("records.changed_at and our own reading ($name)", (factory) => {
  it("a 304's copy read again by a mended recipe: brought up to date, not said changed", async () => {
    const out = await committed(factory, [
      {
        outcome: "ok",
        rows: [
          { id: "a", title: "Agenda  12", kind: "Agendas" },
          { id: "b", title: "Minutes 3" },
        ],
      },
      // The recipe mended: the same copy now reads a clean title and a kind.
      {
        outcome: "unchanged",
        rows: [
          { id: "a", title: "Agenda 12", kind: "agendas" },
          { id: "b", title: "Minutes 3", kind: "minutes" },
        ],
      },
    ]);
    expect(out[1]).toEqual({
      a: { title: "Agenda 12", kind: "agendas", changed: null },
      b: { title: "Minutes 3", kind: "minutes", changed: null },
    });
  });

  it("a link our mended reading writes anew (an https twin) keeps the record, not said changed", async () => {
    const out = await committed(factory, [
      { outcome: "ok", rows: [{ id: "http://x.gov/a.pdf", title: "Bid  12", date: "2026-11-20" }] },
      {
        outcome: "unchanged",
        rows: [{ id: "https://x.gov/a.pdf", title: "Bid 12", date: "2026-11-20" }],
      },
    ]);
    expect(out[1]).toEqual({
      "https://x.gov/a.pdf": { title: "Bid 12", kind: null, changed: null },
    });
  });

  it("a change the site made is still said, and kept through a later re-read of our own", async () => {
    const out = await committed(factory, [
      { outcome: "ok", rows: [{ id: "a", title: "Bid 12" }] },
      { outcome: "ok", rows: [{ id: "a", title: "CANCELLED: Bid 12" }] },
      { outcome: "unchanged", rows: [{ id: "a", title: "CANCELLED: Bid 12", kind: "bids" }] },
    ]);
    expect(out[1]?.["a"]?.changed).toBe(iso(1));
    expect(out[2]?.["a"]).toEqual({ title: "CANCELLED: Bid 12", kind: "bids", changed: iso(1) });
  });

  it("a full answer's change counts, and so do the older pages a backfill read in full beside a 304", async () => {
    const out = await committed(factory, [
      {
        outcome: "ok",
        rows: [
          { id: "a", title: "Bid 12" },
          { id: "old", title: "Bid 1" },
        ],
      },
      {
        outcome: "unchanged",
        rows: [
          { id: "a", title: "Bid 12", kind: "bids" },
          { id: "old", title: "Bid 1 (awarded)" },
        ],
        olderFrom: 1,
      },
      { outcome: "ok", rows: [{ id: "a", title: "Bid 12 (awarded)", kind: "bids" }] },
    ]);
    expect(out[1]?.["a"]?.changed).toBeNull();
    expect(out[1]?.["old"]?.changed).toBe(iso(1));
    expect(out[2]?.["a"]?.changed).toBe(iso(2));
  });
});
