import { afterEach, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";

/**
 * Review of the claim that asks READS_BEFORE in its RETURNING (CLAIM_READING): a night resumed
 * after the checker found itself offline writes its real outcome over tonight's checker-offline
 * row (the claim's DO UPDATE, not its insert). What the records' insert reads first must be as
 * on a night with no such row: the same records new, the same already listed, the same first ids.
 */
const SRC = "a.gov/0";
const A = "https://a.gov/list";
const B = "https://a.gov/api";
const T0 = Date.parse("2026-11-05T06:00:00Z");

function result(
  url: string,
  ids: string[],
  opts: { kind?: SourceResult["outcome"]["kind"]; reader?: string } = {},
): SourceResult {
  return {
    sourceId: SRC,
    outcome: { kind: opts.kind ?? "ok", url },
    way: { used: { access: "page", url }, skipped: [] },
    ...(opts.reader !== undefined ? { reader: opts.reader } : {}),
    records: ids.map((id) => ({ id, title: `item ${id.replace(/^https?:\/\//, "")}`, url: id })),
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
  };
}

function offline(): SourceResult {
  return {
    sourceId: SRC,
    outcome: { kind: "checker-offline", reason: "the checker could not reach the internet" },
    records: [],
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 1,
  };
}

describe.each(storeFactories())("a claim over tonight's checker-offline row ($name)", (f) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  it("P20, P23, P6: records committed over a checker-offline row are counted and stored as on a night without it (first ids, another way in, another reader)", async () => {
    const plain = await openStore(await f.migrated());
    const resumed = await openStore(await f.migrated());
    stores.push(plain, resumed);
    const history: [string, SourceResult][] = [
      ["2026-11-01", result(A, ["http://a.gov/1", "http://a.gov/2"], { reader: "r1" })],
      // Links written anew: a record taken over keeps its first id.
      [
        "2026-11-02",
        result(A, ["https://a.gov/1", "http://a.gov/2", "http://a.gov/3"], { reader: "r1" }),
      ],
      // A first id's spelling listed again by a new record; another way in.
      [
        "2026-11-03",
        result(B, ["https://a.gov/1", "http://a.gov/1", "http://a.gov/4"], { reader: "r1" }),
      ],
      ["2026-11-04", result(A, ["https://a.gov/1", "http://a.gov/5"], { reader: "r2" })],
      ["2026-11-05", result(A, ["http://a.gov/6", "https://a.gov/1"], { reader: "r2" })],
    ];
    const rows = (db: Store["db"]) =>
      db
        .selectFrom("records")
        .select(["record_id", "first_seen_night", "already_listed", "first_id", "changed_at"])
        .orderBy("record_id")
        .execute();
    const said: unknown[][] = [[], []];
    let firstIds = 0;
    for (const [night, r] of history) {
      said[0]?.push(await new SqlNightStore(plain.db).commit(night, r));
      const s = new SqlNightStore(resumed.db);
      expect(await s.commit(night, offline())).toEqual({ newRecords: 0 });
      said[1]?.push(await s.commit(night, r));
      const a = await rows(plain.db);
      firstIds += a.filter((x) => x.first_id !== null).length;
      expect(await rows(resumed.db), night).toEqual(a);
    }
    expect(said[1]).toEqual(said[0]);
    // The history reached what it is for: a first id kept on some night.
    expect(firstIds).toBeGreaterThan(0);
    const outcomes = (db: Store["db"]) =>
      db
        .selectFrom("night_sources")
        .select(["night", "outcome", "records_found", "new_records"])
        .orderBy("night")
        .execute();
    expect(await outcomes(resumed.db)).toEqual(await outcomes(plain.db));
  });
});
