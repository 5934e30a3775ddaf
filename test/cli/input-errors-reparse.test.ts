import { rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { nor } from "./cli-capture.js";

/**
 * `nor reparse` over stored copies that do not read back (a file cut short): a source whose
 * copies could not all be re-read is said to be not re-read, none of its stored records is
 * called removed on that account, and the command exits 1. No archive at all where the index
 * names copies (moved away, a mistyped --data) is said once, as `nor archive verify` says it
 * (exit 2). It writes nothing either way.
 */
const LIST = (n: string) => `<ul>
  <li class="bid"><a href="/${n}/1">Road salt</a> <span>2026-11-01</span></li>
  <li class="bid"><a href="/${n}/2">Paving</a> <span>2026-11-02</span></li>
</ul>`;

describe("nor reparse over copies that do not read back", () => {
  let t: TempStore;
  let catalog: string;
  // Nothing listens there: reparse never fetches (test/archive/reparse.test.ts proves it).
  const base = "http://127.0.0.1:9";
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(`${base}/one`, LIST("one"), { source: "one-bids" }));
    await a.write(exchange(`${base}/two`, LIST("two"), { source: "two-bids" }));
    await a.close();
    catalog = join(t.dataDir, "catalog.yaml");
    const source = (id: string, path: string) => `  - id: ${id}
    government: city-of-x
    records: bids
    access: page
    url: "${base}/${path}"
    extract: { items: "li.bid", link: a, title: a, date: span }
`;
    writeFileSync(
      catalog,
      `governments:
  - { id: city-of-x, name: City of X, kind: city, county: Summit }
sources:
${source("one-bids", "one")}${source("two-bids", "two")}`,
    );
    // Each source holds one record no copy lists: "removed", when its copies were all read.
    await t.store.db
      .insertInto("records")
      .values(
        ["one-bids", "two-bids"].map((s) => ({
          source_id: s,
          record_id: `${s}-gone`,
          title: "A bid the old recipe saw",
          date: null,
          url: null,
          kind: null,
          first_seen_night: "2026-11-04",
          first_seen_at: "2026-11-04T08:00:00.000Z",
        })),
      )
      .execute();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  async function recordCount(): Promise<number> {
    const r = await t.store.db
      .selectFrom("records")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  it("P8: the archive gone: said once, naming the directory looked in (exit 2, as nor archive verify says it), nothing compared or called removed", async () => {
    rmSync(t.archiveDir, { recursive: true });
    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `nor: no archive at ${t.archiveDir}: the directory does not exist, though the index names 2 stored copies in it (check --data; put the archive back if it was moved)\n`,
    );
    expect(await recordCount()).toBe(2);
  });

  it("a file cut short: only the source whose copy was cut is not re-read; the other is compared in full", async () => {
    const [cut] = await t.store.db
      .selectFrom("captures")
      .select(["file", "offset"])
      .where("source", "=", "two-bids")
      .execute();
    if (!cut) throw new Error("no capture of two-bids");
    truncateSync(join(t.archiveDir, cut.file), Number(cut.offset) + 10);
    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(
      "one-bids: 1 capture read, 2 records found now, 1 stored — would add 2, would remove 1, would change 0",
    );
    expect(r.stdout).toContain("  - one-bids-gone  A bid the old recipe saw");
    expect(r.stdout).toContain("two-bids: not re-read — 1 of 1 capture could not be re-read");
    expect(r.stdout).not.toContain("two-bids-gone");
    expect(r.stdout).toContain("record cut short");
    expect(r.stdout).toContain(
      "2 sources: would add 2, would remove 1, would change 0; 1 not re-read\n",
    );
    expect(r.stderr).toContain("nor: 1 of 2 sources not re-read");
    expect(await recordCount()).toBe(2);
  });

  it("one source asked for, its one copy cut short: its words and the summary's count one capture, one source (798a90f's plurals, in the lines it left)", async () => {
    const [cut] = await t.store.db
      .selectFrom("captures")
      .select(["file", "offset"])
      .where("source", "=", "two-bids")
      .execute();
    if (!cut) throw new Error("no capture of two-bids");
    truncateSync(join(t.archiveDir, cut.file), Number(cut.offset) + 10);
    const r = await nor(
      "reparse",
      "--data",
      t.dataDir,
      "--catalog",
      catalog,
      "--source",
      "two-bids",
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(
      "two-bids: not re-read — 1 of 1 capture could not be re-read; 0 records found in the rest",
    );
    expect(r.stdout).toContain(
      "1 source: would add 0, would remove 0, would change 0; 1 not re-read\n",
    );
    expect(r.stdout).not.toMatch(/\b1 (captures|sources|records)\b/);
    expect(r.stderr).toContain("nor: 1 of 1 source not re-read");
    const one = await nor(
      "reparse",
      "--data",
      t.dataDir,
      "--catalog",
      catalog,
      "--source",
      "one-bids",
    );
    expect(one.code, one.stdout + one.stderr).toBe(0);
    expect(one.stdout).toContain(
      "1 source: would add 2, would remove 1, would change 0; 0 not re-read\n",
    );
  });

  it("P8: reparse compares only: it says what would change and that nothing was written, and run again says the same over the same store", async () => {
    const before = await t.store.db
      .selectFrom("records")
      .selectAll()
      .orderBy("record_id")
      .execute();
    const first = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain(
      "one-bids: 1 capture read, 2 records found now, 1 stored — would add 2, would remove 1, would change 0\n",
    );
    expect(first.stdout).toMatch(
      /2 sources: would add 4, would remove 2, would change 0; 0 not re-read\nnothing was written: /,
    );
    // Nothing was written: the store holds what it held, and a second run says the same.
    expect(
      await t.store.db.selectFrom("records").selectAll().orderBy("record_id").execute(),
    ).toEqual(before);
    const again = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    // Its help says so too.
    const help = await nor("reparse", "--help");
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "say what would change against the stored records; it compares only and writes nothing",
    );
  });

  it("every copy read back: exit 0, as before", async () => {
    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "2 sources: would add 4, would remove 2, would change 0; 0 not re-read\n",
    );
    expect(r.stderr).toBe("");
  });
});
