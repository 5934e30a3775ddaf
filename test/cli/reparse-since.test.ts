import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { nor } from "./cli-capture.js";

/**
 * `nor reparse --since`: only the captures in the window are read, so only what they could
 * have produced is compared. A stored record is called removed only when every list page of
 * its source was read; a source with no capture in the window, or with a page last read before
 * it, has nothing called removed.
 */
const page = (n: string, ids: number[]) =>
  `<ul>${ids.map((i) => `<li class="bid"><a href="/${n}/${i}">Bid ${n} ${i}</a></li>`).join("")}</ul>`;

const OCT = Date.UTC(2026, 9, 5, 8, 0, 0);
const NOV = Date.UTC(2026, 10, 5, 8, 0, 0);

describe("nor reparse --since", () => {
  let t: TempStore;
  let catalog: string;
  // Nothing listens there: reparse never fetches.
  const base = "http://127.0.0.1:9";
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    // one-bids: read in October only. two-bids: its first page in November, its backfill page
    // (page 2) in October only. three-bids: its one page in October and again in November.
    await a.write(exchange(`${base}/one`, page("one", [1, 2]), { source: "one-bids", at: OCT }));
    await a.write(exchange(`${base}/two`, page("two", [1]), { source: "two-bids", at: NOV }));
    await a.write(
      exchange(`${base}/two?page=2`, page("two", [2]), {
        source: "two-bids",
        at: OCT,
        purpose: "backfill",
      }),
    );
    await a.write(
      exchange(`${base}/three`, page("three", [1, 2]), { source: "three-bids", at: OCT }),
    );
    await a.write(exchange(`${base}/three`, page("three", [1]), { source: "three-bids", at: NOV }));
    await a.close();
    const source = (id: string, path: string) => `  - id: ${id}
    government: city-of-x
    records: bids
    access: page
    url: "${base}/${path}"
    extract: { items: "li.bid", link: a, title: a }
`;
    catalog = join(t.dataDir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: city-of-x, name: City of X, kind: city, county: Summit }
sources:
${source("one-bids", "one")}${source("two-bids", "two")}${source("three-bids", "three")}`,
    );
    // What the nights stored: every record each page listed when it was read.
    const stored: [string, string, string][] = [
      ["one-bids", "one", "1"],
      ["one-bids", "one", "2"],
      ["two-bids", "two", "1"],
      ["two-bids", "two", "2"],
      ["three-bids", "three", "1"],
      ["three-bids", "three", "2"],
    ];
    await t.store.db
      .insertInto("records")
      .values(
        stored.map(([s, n, i]) => ({
          source_id: s,
          record_id: `${base}/${n}/${i}`,
          title: `Bid ${n} ${i}`,
          date: null,
          url: `${base}/${n}/${i}`,
          kind: null,
          first_seen_night: "2026-10-05",
          first_seen_at: "2026-10-05T08:00:00.000Z",
        })),
      )
      .execute();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("a window with no capture: nothing read, nothing called removed", async () => {
    const r = await nor(
      "reparse",
      "--data",
      t.dataDir,
      "--catalog",
      catalog,
      "--since",
      "2030-01-01",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "one-bids: no capture in the window; 2 stored, none called removed\n",
    );
    expect(r.stdout).toContain(
      "two-bids: no capture in the window; 2 stored, none called removed\n",
    );
    expect(r.stdout).not.toContain("  - ");
    expect(r.stdout).toContain(
      "3 sources: would add 0, would remove 0, would change 0; 0 not re-read\n",
    );
  });

  it("a window that leaves out older pages: only sources whose every page was read have records called removed", async () => {
    const r = await nor(
      "reparse",
      "--data",
      t.dataDir,
      "--catalog",
      catalog,
      "--since",
      "2026-11-01",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "one-bids: no capture in the window; 2 stored, none called removed\n",
    );
    // Page 2 was read in October only: its record is not said to be gone.
    expect(r.stdout).toContain(
      "two-bids: 1 capture read, 1 record found now, 2 stored — would add 0, would change 0; 1 page last read before the window not read, none called removed\n",
    );
    expect(r.stdout).not.toContain(`- ${base}/two/2`);
    // Its one page read in the window is its latest: bid 2 left the list, and is said so.
    expect(r.stdout).toContain(
      "three-bids: 1 capture read, 1 record found now, 2 stored — would add 0, would remove 1, would change 0\n",
    );
    expect(r.stdout).toContain(`  - ${base}/three/2  Bid three 2\n`);
    expect(r.stdout).toContain(
      "3 sources: would add 0, would remove 1, would change 0; 0 not re-read\n",
    );
  });

  it("without --since every page is read, as before", async () => {
    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "one-bids: 1 capture read, 2 records found now, 2 stored — would add 0, would remove 0, would change 0\n",
    );
    expect(r.stdout).toContain(
      "two-bids: 2 captures read, 2 records found now, 2 stored — would add 0, would remove 0, would change 0\n",
    );
    expect(r.stdout).toContain(
      "3 sources: would add 0, would remove 1, would change 0; 0 not re-read\n",
    );
  });
});
