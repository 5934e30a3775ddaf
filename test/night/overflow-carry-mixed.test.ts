import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  asked,
  desc,
  list,
  listSite,
  newCount,
  newTitles,
  PER_PAGE,
  titles,
} from "./overflow-carry-world.js";
import { nightOn, testerWorld } from "./tester-nights.js";

/**
 * P7: an overflow carried over, against lists as sites show them: a first page mixing new records
 * with older ones, records shifting across page boundaries between nights.
 */
const world = testerWorld("nor-overflow-mixed-");

describe("an overflow carried over against lists as sites show them (P7)", () => {
  it("P7: a first page showing new records beside an older one moved to the top (updated), none of the overflow's, while an overflow is pending: the pages pending are read on, every record new on record", async () => {
    let count = 10;
    let bumped = false;
    // R 5, updated, shown first (a list sorted by its last change).
    const { catalog, data } = await listSite(
      world,
      "mixed-bumped",
      list(() => (bumped ? [5, ...desc(count).filter((n) => n !== 5)] : desc(count))),
    );
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));
    // Two posted and R 5 updated: the first page shows R 5 (held before the 21st), R 42 and R 41
    // (new); none of the overflow's records.
    count = 42;
    bumped = true;
    const seen: string[] = [];
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
    }
    expect(seen.sort()).toEqual(titles(11, 42).filter((t) => !titles(29, 40).includes(t)));
  });
});

describe("records alike on a carried-over page (P7)", () => {
  it("P7: a day's legal notices (one title, one day) some of which were held before the overflow began: the pages pending are read on, not taken for the list's files moved; every record new on record", async () => {
    let count = 10;
    // Forty notices posted on November 2, every one "Legal Notice": ten held the first night.
    const { catalog, data } = await listSite(
      world,
      "alike-same-day",
      list(() => desc(count), {
        item: (n) =>
          `<li><a href="/d/notice-${n}.pdf">Legal Notice</a> <span>11/02/2026</span></li>`,
      }),
    );
    const fresh = (night: string): Promise<number> => newCount(data, night);
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await fresh("2026-11-21")).toBe(12);
    let total = 12;
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      await nightOn(catalog, data, night);
      total += await fresh(night);
    }
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(total).toBe(30);
  });
});

describe("a list taken back while an overflow is pending (P7, P24)", () => {
  it("P7, P24: the site took back what it posted and posted one anew, its pages past the list's end answering 404: the overflow pending ends with the page kept gone, no flag for a person", async () => {
    let order = desc(10);
    const { catalog, data } = await listSite(
      world,
      "taken-back",
      list(() => order, {
        fail: (page, res) => {
          if ((page - 1) * PER_PAGE < order.length) return false;
          res.writeHead(404).end("not found");
          return true;
        },
      }),
    );
    order = desc(40);
    await nightOn(catalog, data, "2026-11-21");
    // The thirty taken back, R 41 posted: the first page shows R 41 (new), R 10 and R 9.
    order = [41, ...desc(10)];
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
      await nightOn(catalog, data, night);
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=5"]);
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const flags = db.prepare("select kind from flags where kind = 'overflow-gave-up'").all();
      expect(flags).toEqual([]);
    } finally {
      db.close();
    }
  });
});
