import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Outside tester (new on record): a bids page that shows no open bids on its first nights (the
 * only real CivicPlus Bids.aspx fixture is exactly that empty state: test/fixtures/platforms/
 * civicplus-bids, PROVENANCE.md "Empty state"), then posts its first bid. The night reads the
 * page, the preset finds the bid, and it is kept as the source's record; but since no earlier
 * night "found records" on the list it is read "as for the first time" (docs/catalog.md, "New on
 * record, and already listed") and called already listed: never on /new, its feeds or counts.
 *
 * SPEC, "The directory": "New on record: what appeared across Ohio since yesterday", for
 * "contractors looking for bids". The earlier nights did read the page (it opened, it said "There
 * are no open bid postings"): the bid was not there before. (The page is read with a recipe that
 * takes the preset's links, `Bids.aspx?bidID=`: a source on a platform preset is not run back to
 * back on loopback.) The same happens to every bids page
 * that had no open bid for 30 nights, so a small government's next bid is never announced.
 */
const world = testerWorld("nor-tester-new-empty-bids-");
const EMPTY = readFileSync(
  join(
    import.meta.dirname,
    "../fixtures/platforms/civicplus-bids/FL_lakehamilton_Bids.aspx_no_open_bids.html",
  ),
  "latin1",
);
const WITH_BID = EMPTY.replace(
  "There are no open bid postings at this time.",
  '<a href="Bids.aspx?bidID=417">Road Salt 2026-2027 (RFB 26-04)</a>',
);

describe("tester-new: the first bid on a bids page that showed none", () => {
  it("P7: a bid posted on a page the nights before read as empty is new on record that night", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let body = EMPTY;
    site.route(
      "/Bids.aspx",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "text/html; charset=iso-8859-1" })
          .end(Buffer.from(body, "latin1")),
    );
    const catalog = testerCatalog(world.dir, "bids", [
      `  - { id: village-bids, government: city-of-test, records: bids, url: "${site.url("/Bids.aspx")}", extract: { items: "a[href*='bidID=']" } }`,
    ]);
    const data = join(world.dir, "bids");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    body = WITH_BID;
    await nightOn(catalog, data, "2026-11-22");

    const [fresh, source, feed] = await ask<NewAnswer & { newestRecords: { title: string }[] }>(
      data,
      "2026-11-22T15:00:00Z",
      ["/api/new", "/api/sources/village-bids", "/new.json"],
    );
    // The preset read it: the page holds the bid.
    expect((source?.json?.newestRecords ?? []).map((r) => r.title)).toEqual([
      "Road Salt 2026-2027 (RFB 26-04)",
    ]);
    // It appeared since yesterday: new on record, and in the feed.
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([
      "Road Salt 2026-2027 (RFB 26-04)",
    ]);
    expect(fresh?.json?.counts.alreadyListed).toBe(0);
    expect(feed?.text).toContain("Road Salt 2026-2027");
  });
});
