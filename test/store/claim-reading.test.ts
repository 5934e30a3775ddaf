import { afterEach, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { openStore, type Store } from "../../src/store/db.js";
import { READS_BEFORE, readsBeforeArgs } from "../../src/store/night-records.js";
import { CLAIM_READING, SqlNightStore } from "../../src/store/night-store.js";
import { writeTxn } from "../../src/store/write-txn.js";
import { storeFactories } from "./stores.js";

/**
 * A source's commit with records asks what insertRecords reads first (the list's last read, the
 * way it was read, whether a record keeps a first id: READS_BEFORE) in its claim's own statement
 * (CLAIM_READING's RETURNING), not one of its own. Whatever the source's nights before, the
 * claim says what READS_BEFORE says just before it: the claim writes tonight's row only, which
 * none of those columns reads.
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
    records: ids.map((id) => ({ id, title: `item ${id}`, url: id })),
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
  };
}

describe.each(storeFactories())("a source's claim asked with its list's last read ($name)", (f) => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it("P4, P6: the claim's RETURNING says what READS_BEFORE says before it, night after night (first read, the same list, another way in, another reader, a first id kept, an empty read)", async () => {
    store = await openStore(await f.migrated());
    const s = store;
    const nights = new SqlNightStore(s.db);
    const history: [string, SourceResult][] = [
      ["2026-11-01", result(A, ["http://a.gov/1", "http://a.gov/2"], { reader: "r1" })],
      // The same list, its links written anew: a record taken over keeps its first id.
      ["2026-11-02", result(A, ["https://a.gov/1", "http://a.gov/2"], { reader: "r1" })],
      ["2026-11-03", result(B, ["https://a.gov/1", "http://a.gov/3"], { reader: "r1" })],
      ["2026-11-04", result(A, ["https://a.gov/1"], { reader: "r2" })],
      ["2026-11-05", result(A, [], { kind: "no-records", reader: "r2" })],
    ];
    const asked = [
      result(A, ["x"], { reader: "r1" }),
      result(A, ["x"], { reader: "r2" }),
      result(B, ["x"], { reader: "r1" }),
      result("https://a.gov/elsewhere", ["x"]),
    ];
    let compared = 0;
    const seen = new Set<string>();
    const compareAt = async (night: string) => {
      for (const r of asked) {
        const args = readsBeforeArgs(night, r);
        expect(args).toBeDefined();
        if (args === undefined) continue;
        const before = await READS_BEFORE.first(s.db, args);
        // The claim, run and taken back: the store as it was for the next one.
        const claimed = await writeTxn(s.db, async (tx) => {
          const row = await CLAIM_READING.first(tx, {
            ...args,
            outcome: "ok",
            reason: null,
            evidence: null,
            status: null,
            url: r.outcome.url ?? null,
            way: null,
            recordsFound: 1,
            startedAt: "2026-11-05T06:00:00Z",
            endedAt: "2026-11-05T06:00:01Z",
            durationMs: 1,
          });
          throw Object.assign(new Error("rolled back"), { row });
        }).catch((err: { row?: unknown }) => err.row);
        const { source_id, ...rest } = claimed as { source_id: string } & Record<string, unknown>;
        expect(source_id).toBe(SRC);
        expect(normal(rest), `${night} ${r.outcome.url} ${r.reader}`).toEqual(normal(before));
        compared++;
        if (before?.same != null) seen.add("same");
        if (before?.last_address === B) seen.add("other way");
        if (before?.last_reader === "r1" && r.reader === "r2") seen.add("other reader");
        if (normal(before)["any_first_id"] === true) seen.add("first id");
      }
    };
    await compareAt("2026-11-01");
    for (const [i, [night, r]] of history.entries()) {
      await nights.commit(night, r);
      const next = history[i + 1]?.[0] ?? "2026-11-06";
      await compareAt(next);
    }
    expect(compared).toBe(asked.length * (history.length + 1));
    expect([...seen].sort()).toEqual(["first id", "other reader", "other way", "same"]);
    // The history reached what it is for: a first id kept, and the way switched.
    const kept = await s.db
      .selectFrom("records")
      .select("first_id")
      .where("first_id", "is not", null)
      .execute();
    expect(kept.length).toBeGreaterThan(0);
  });
});

/** EXISTS as a boolean from PostgreSQL and 0 or 1 from SQLite: compared as a boolean. */
function normal(row: unknown): Record<string, unknown> {
  const out = { ...(row as Record<string, unknown>) };
  const v = out["any_first_id"];
  out["any_first_id"] = v === true || v === 1 || v === "1" || v === "t";
  return out;
}
