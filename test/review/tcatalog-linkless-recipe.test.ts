import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Outside tester (the operator mending a recipe): a list of notices without links, each known by
 * its title and its date (P6, docs/catalog.md "Record ids"), whose recipe read the date from the
 * wrong column (the hearing's, not the posting's). Mended in the catalog, the night read every
 * notice under a new id (its date is part of it) and paired none with the ones held (another
 * day): before the fix, every notice was on /new again as "appeared since yesterday", and the
 * source's page listed each twice. promises.md, P6: a record "read by a mended recipe is
 * brought up to date when the page is next read, and is not new again".
 */
const world = testerWorld("nor-tcatalog-linkless-");
const ROWS = [1, 2, 3]
  .map(
    (i) =>
      `<tr class="r"><td class="t">Notice of hearing ${i}</td><td class="posted">11/0${i}/2026</td><td class="hearing">12/1${i}/2026</td></tr>`,
  )
  .join("");

describe("P6: a linkless list's recipe mended in the catalog", () => {
  it("P6: a linkless list whose date selector is mended: no notice is new again nor listed twice, each redated; reparse adds and removes none", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/list", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(`<table>${ROWS}</table>`);
    });
    const data = join(world.dir, "dates");
    const catalogOf = (name: string, date: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: notices, government: city-of-test, records: notices, url: "${site.url("/list")}", extract: { items: tr.r, title: td.t, date: ${date} } }`,
      ]);
    const wrong = catalogOf("wrong-column", "td.hearing");
    const mended = catalogOf("mended", "td.posted");
    await nightOn(wrong, data, "2026-11-20");
    await nightOn(wrong, data, "2026-11-21");
    // Before the night reads the list with it, reparse says what the mended recipe would do.
    const re = await runMain(["reparse", "--data", data, "--catalog", mended]);
    // Before the fix: "would add 3, would remove 3".
    expect(re.stdout).toMatch(/notices: .*would add 0, would remove 0/);
    await nightOn(mended, data, "2026-11-22");
    const [fresh, source] = await ask<
      NewAnswer & { newestRecords: { title: string; date: string }[] }
    >(data, "2026-11-22T15:00:00Z", ["/api/new", "/api/sources/notices"]);
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([]);
    expect((source?.json?.newestRecords ?? []).map((r) => `${r.title} ${r.date}`).sort()).toEqual([
      "Notice of hearing 1 2026-11-01",
      "Notice of hearing 2 2026-11-02",
      "Notice of hearing 3 2026-11-03",
    ]);
  }, 60_000);
});
