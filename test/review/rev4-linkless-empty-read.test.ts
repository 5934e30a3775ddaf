import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Review of d5fb885 (the title pass limited to the records the list showed at its last read in
 * full). The commonest mend of a recipe follows nights it read nothing: the site changed its
 * layout, the old recipe found no rows ("no records on the page"), and that read is the list's
 * last read in full, showing no ids. The title pass then paired none, and every record the mended
 * recipe reads under another id (its date read from another column) was new on record again.
 */
const world = testerWorld("nor-rev4-linkless-empty-");
const row = (cls: string, title: string, posted: string, hearing: string) =>
  `<tr class="${cls}"><td class="t">${title}</td><td class="posted">${posted}</td><td class="hearing">${hearing}</td></tr>`;
const notices = (cls: string) =>
  [1, 2, 3].map((i) => row(cls, `Notice of hearing ${i}`, `11/0${i}/2026`, `12/1${i}/2026`));

describe("P6: a linkless list's recipe mended after nights it read nothing", () => {
  it("P6: a linkless list's recipe mended the night after its old recipe read no rows (the site's layout changed) pairs its records by title: none is new on record again", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let rows: string[] = [];
    site.route("/list", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end(`<table>${rows.join("")}</table>`);
    });
    const data = join(world.dir, "layout");
    const catalogOf = (name: string, items: string, date: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: notices, government: city-of-test, records: notices, url: "${site.url("/list")}", extract: { items: ${items}, title: td.t, date: ${date} } }`,
      ]);
    const old = catalogOf("old", "tr.r", "td.hearing");
    const mended = catalogOf("mended", "tr.row", "td.posted");
    rows = notices("r");
    await nightOn(old, data, "2026-11-19");
    await nightOn(old, data, "2026-11-20");
    // The site's new layout: the old recipe finds no rows.
    rows = notices("row");
    await nightOn(old, data, "2026-11-21");
    await nightOn(mended, data, "2026-11-22");
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", ["/api/new"]);
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([]);
  }, 60_000);
});
