import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { type StoreFactory, storeFactories } from "./stores.js";

/**
 * Migration 022: a record whose link its site wrote anew keeps the id it was first listed under
 * (`records.first_id`, the name of its feed entries), until a new record takes that very id: then
 * each is named by its own id, so two records never share a feed entry's name.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;
const URL = "https://x.gov/list";

const src = (ids: string[]): SourceResult => ({
  sourceId: "x",
  outcome: { kind: "ok", url: URL },
  way: { used: { access: "page", url: URL }, skipped: [] },
  records: ids.map((id) => ({ id, title: `Agenda ${id.slice(-5)}`, url: id })),
  validators: [],
  flags: [],
  startedAt: T0,
  endedAt: T0 + 500,
});

/**
 * Each night in turn (`day` nights after NIGHT, else its place): the list at `url` committed;
 * after each, every record's id and first id.
 */
async function firstIdsAfter(
  factory: StoreFactory,
  nights: readonly [url: string, ids: string[], day?: number][],
): Promise<Record<string, string | null>[]> {
  const s = await openStore(await factory.migrated());
  const store = new SqlNightStore(s.db);
  const out: Record<string, string | null>[] = [];
  try {
    await store.syncSources([{ id: "x", government: "g", url: URL, site: "x.gov" }], T0);
    for (const [k, [url, ids, day]] of nights.entries()) {
      const i = day ?? k;
      const n = addDays(NIGHT, i);
      await store.openNight(n, T0 + i * DAY, T0 + i * DAY + 6 * 3600_000);
      await store.commit(n, {
        ...src(ids),
        outcome: { kind: "ok", url },
        way: { used: { access: "page", url }, skipped: [] },
        startedAt: T0 + i * DAY,
        endedAt: T0 + i * DAY + 500,
      });
      const rows = await s.db
        .selectFrom("records")
        .select(["record_id", "first_id"])
        .where("source_id", "=", "x")
        .orderBy("record_id")
        .execute();
      out.push(Object.fromEntries(rows.map((r) => [r.record_id, r.first_id])));
    }
  } finally {
    await s.close();
  }
  return out;
}

/** The names feed entries get: the first id, else the id. */
const feedIds = (m: Record<string, string | null> | undefined) =>
  Object.entries(m ?? {}).map(([id, first]) => first ?? id);

describe.each(factories)("records.first_id ($name)", (factory) => {
  it("P6: a link written back the way it first was keeps its first name; a chain of spellings keeps the first", async () => {
    const back = await firstIdsAfter(factory, [
      [URL, ["http://x.gov/a.pdf"]],
      [URL, ["https://x.gov/a.pdf"]],
      [URL, ["http://x.gov/a.pdf"]],
    ]);
    expect(back[2]).toEqual({ "http://x.gov/a.pdf": null });
    const chain = await firstIdsAfter(factory, [
      [URL, ["http://x.gov/a.pdf"]],
      [URL, ["https://x.gov/a.pdf"]],
      [URL, ["https://www.x.gov/a.pdf"]],
    ]);
    expect(feedIds(chain[2])).toEqual(["http://x.gov/a.pdf"]);
  });

  it("P6: a first read (a list moved, or unread past the horizon) that lists both spellings gives each its own name", async () => {
    for (const third of [
      [`${URL}2`, ["https://x.gov/a.pdf", "http://x.gov/a.pdf"]],
      [URL, ["https://x.gov/a.pdf", "http://x.gov/a.pdf"], 40],
    ] as const) {
      const out = await firstIdsAfter(factory, [
        [URL, ["http://x.gov/a.pdf"]],
        [URL, ["https://x.gov/a.pdf"]],
        [third[0], [...third[1]], ...(third.length === 3 ? [third[2]] : [])] as [
          string,
          string[],
          number?,
        ],
      ]);
      const ids = feedIds(out[2]);
      expect(new Set(ids).size, JSON.stringify(out[2])).toBe(ids.length);
    }
  });

  it("P6: kept through an https move, and let go when a new record takes that id", async () => {
    const firstIds = await firstIdsAfter(factory, [
      [URL, ["http://x.gov/a.pdf", "http://x.gov/b.pdf"]],
      [URL, ["https://x.gov/a.pdf", "https://x.gov/b.pdf"]],
      // The old spelling listed again beside the new one: a row of its own, new.
      [URL, ["https://x.gov/a.pdf", "https://x.gov/b.pdf", "http://x.gov/a.pdf"]],
    ]);
    expect(firstIds).toEqual([
      { "http://x.gov/a.pdf": null, "http://x.gov/b.pdf": null },
      {
        "https://x.gov/a.pdf": "http://x.gov/a.pdf",
        "https://x.gov/b.pdf": "http://x.gov/b.pdf",
      },
      {
        "http://x.gov/a.pdf": null,
        "https://x.gov/a.pdf": null,
        "https://x.gov/b.pdf": "http://x.gov/b.pdf",
      },
    ]);
  });
});
