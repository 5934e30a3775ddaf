import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Outside tester (new on record): a list read after its backfill ended is read on its first
 * page only. A day on which the site posts more records than its first page shows (a county
 * posting a batch of bid documents, a board's packet of minutes) pushes the oldest of them to
 * page 2 before any night saw them. SPEC "The directory": "New on record: what appeared across
 * Ohio since yesterday"; P7: after the backfill "it reads only what's new". Those records
 * appeared, but are never new on record, nor ever among the source's records at all.
 */
const world = testerWorld("nor-tester-new-overflow-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const PER_PAGE = 5;

describe("tester-new: more new records in a day than the list's first page shows", () => {
  it("P7: every record posted since the last night is new on record, not only the first page's", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    // Newest first. Night 1 sees r1..r8; by night 2 the site has posted r9..r15 (7 > 5).
    let count = 8;
    site.route("/bids", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i); // newest first
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/d/bid-${n}.pdf">Bid ${n}</a> <span>11/${String(n).padStart(2, "0")}/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/bids?page=${page + 1}">Next</a>` : ""}`,
        );
    });
    const catalog = testerCatalog(world.dir, "overflow", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${site.url("/bids")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "overflow");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21"); // nothing new; the backfill has seen the end
    count = 15;
    await nightOn(catalog, data, "2026-11-22");

    const [fresh, source] = await ask<NewAnswer & { newestRecords: { title: string }[] }>(
      data,
      "2026-11-22T15:00:00Z",
      ["/api/new?night=2026-11-22", "/api/sources/bids"],
    );
    const titles = (fresh?.json?.items ?? []).map((i) => i.title).sort();
    const held = (source?.json?.newestRecords ?? []).map((r) => r.title);
    // Every one of the seven posted since the last night is new on record.
    expect(titles).toEqual(
      ["Bid 9", "Bid 10", "Bid 11", "Bid 12", "Bid 13", "Bid 14", "Bid 15"].sort(),
    );
    // And the source holds every record its list shows (r9 and r10 are on page 2 tonight).
    expect(held).toContain("Bid 9");
    expect(held).toContain("Bid 10");
  });
});
