import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Review of c947582 (a linkless list's recipe mended: records paired by title alone). The title
 * pass pairs a row with any record the source holds under that title and no other, however long
 * ago it left the list: a notice posted again under last year's title, on the night the recipe is
 * mended, is taken for last year's one (redated), and never on New on record.
 */
const world = testerWorld("nor-rev2-linkless-title-");
const row = (title: string, posted: string, hearing: string) =>
  `<tr class="r"><td class="t">${title}</td><td class="posted">${posted}</td><td class="hearing">${hearing}</td></tr>`;
const NOTICES = [1, 2, 3].map((i) =>
  row(`Notice of hearing ${i}`, `11/0${i}/2026`, `12/1${i}/2026`),
);

describe("P6: a linkless list's recipe mended, and a title held from long ago", () => {
  it("P6: on the night a linkless list's date selector is mended, a new row under the title of a record that left the list nights before is new on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let rows: string[] = [];
    site.route("/list", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(`<table>${rows.join("")}</table>`);
    });
    const data = join(world.dir, "dates");
    const catalogOf = (name: string, date: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: notices, government: city-of-test, records: notices, url: "${site.url("/list")}", extract: { items: tr.r, title: td.t, date: ${date} } }`,
      ]);
    const wrong = catalogOf("wrong-column", "td.hearing");
    const mended = catalogOf("mended", "td.posted");
    // Last year's budget hearing is on the list the first night, then taken off.
    rows = [row("Annual budget hearing", "11/15/2025", "12/01/2025"), ...NOTICES];
    await nightOn(wrong, data, "2026-11-19");
    rows = [...NOTICES];
    await nightOn(wrong, data, "2026-11-20");
    await nightOn(wrong, data, "2026-11-21");
    // This year's is posted the night the recipe is mended.
    rows = [row("Annual budget hearing", "11/22/2026", "12/07/2026"), ...NOTICES];
    await nightOn(mended, data, "2026-11-22");
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", ["/api/new"]);
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual(["Annual budget hearing"]);
  }, 60_000);

  it("P6, P8: nor reparse of a linkless list whose date selector is mended pairs by title alone only what the list showed at its last read, as the night does: last year's notice of this year's title is not this year's", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let rows: string[] = [];
    site.route("/list", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(`<table>${rows.join("")}</table>`);
    });
    const data = join(world.dir, "reparse");
    const catalogOf = (name: string, date: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: notices, government: city-of-test, records: notices, url: "${site.url("/list")}", extract: { items: tr.r, title: td.t, date: ${date} } }`,
      ]);
    const wrong = catalogOf("wrong-r", "td.hearing");
    const mended = catalogOf("mended-r", "td.posted");
    rows = [row("Annual budget hearing", "11/15/2025", "12/01/2025"), ...NOTICES];
    await nightOn(wrong, data, "2026-11-19");
    rows = [...NOTICES];
    await nightOn(wrong, data, "2026-11-20");
    // This year's is posted while the recipe still reads the wrong column.
    rows = [row("Annual budget hearing", "11/21/2026", "12/07/2026"), ...NOTICES];
    await nightOn(wrong, data, "2026-11-21");
    const re = await runMain(["reparse", "--data", data, "--catalog", mended]);
    // Each row read now is the one the list showed last night; last year's alone is not shown.
    expect(re.stdout).toMatch(/notices: .*would add 0, would remove 1\b/);
    await nightOn(mended, data, "2026-11-22");
    // New on record once, the night it was posted (11-21), not again as another record.
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", ["/api/new"]);
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual(["Annual budget hearing"]);
  }, 60_000);
});
