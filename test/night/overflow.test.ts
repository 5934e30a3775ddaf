import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ask, type NewAnswer } from "../review/tester-new-world.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P7, P11: after a source's backfill has ended, a night reads its list's first page only; when
 * that page shows none of the records the source holds (a day's records pushed the ones it holds
 * to the next page), the next pages are read that night, through the backfill's pager, until a
 * page shows a record the source holds or the backfill's pages a night (3 by default) are read.
 */
const world = testerWorld("nor-overflow-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const PER_PAGE = 3;

/** Each request for the list's pages on `night`: its path and the log's purpose (P27). */
function asked(data: string, night: string): { path: string; purpose: string }[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare(
        "select url, purpose from request_log where night = ? and purpose != 'robots' order by started_at, id",
      )
      .all(night) as { url: string; purpose: string }[];
    return rows.map((r) => {
      const u = new URL(r.url);
      return { path: u.pathname + u.search, purpose: r.purpose };
    });
  } finally {
    db.close();
  }
}

async function newTitles(data: string, night: string): Promise<string[]> {
  const [fresh] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [`/api/new?night=${night}`]);
  return (fresh?.json?.items ?? []).map((i) => i.title).sort();
}

describe("a day's records past the list's first page (P7, P11)", () => {
  it("P7, P11: the next pages are read only when the first page shows nothing held, until a held record or the bound; logged as backfill", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    site.route("/list", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i); // newest first
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/d/r-${n}.pdf">R ${n}</a> <span>11/01/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`,
        );
    });
    const catalog = testerCatalog(world.dir, "overflow", [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "overflow");
    // Night 1: page 1 and its backfill (pages 2 to 4, the last): the backfill has ended.
    await nightOn(catalog, data, "2026-11-20");
    expect(asked(data, "2026-11-20").map((a) => a.path)).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
    ]);

    // One new record: page 1 still shows records held, so page 1 alone is asked (P11).
    count = 11;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21").map((a) => a.path)).toEqual(["/list"]);
    expect(await newTitles(data, "2026-11-21")).toEqual(["R 11"]);

    // Ten new: pages 1 to 3 show none held; page 4 shows R 11 and R 10: the reading stops there.
    count = 21;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      { path: "/list", purpose: "page" },
      { path: "/list?page=2", purpose: "backfill" },
      { path: "/list?page=3", purpose: "backfill" },
      { path: "/list?page=4", purpose: "backfill" },
    ]);
    expect(await newTitles(data, "2026-11-22")).toEqual(
      Array.from({ length: 10 }, (_, i) => `R ${12 + i}`).sort(),
    );

    // Fourteen new: the bound (3 pages past the first) comes first; page 5 is not asked.
    count = 35;
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23").map((a) => a.path)).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
    ]);
    expect(await newTitles(data, "2026-11-23")).toHaveLength(12);
  });
});
