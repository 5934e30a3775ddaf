import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import {
  asked,
  badRequest,
  dataDir,
  desc,
  etagged,
  flagsOf,
  list,
  listSite,
  newCount,
  newTitles,
  pageFails,
  RECIPE,
  statusOf,
  titles,
} from "./overflow-carry-world.js";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P7, P11: an overflow reading that stops before a page showing a record the source holds (the
 * bound of `pagesPerNight` pages, or a next page that failed) is carried over: the next nights go
 * on reading the list's next pages from where it stopped, until a page shows a record the source
 * held before the night the overflow began, so every record the site posted ends up on record,
 * new. With nothing pending, a night asks the first page only.
 */
const world = testerWorld("nor-overflow-carry-");

describe("an overflow left unfinished is read on the next nights (P7, P11)", () => {
  it("P7, P11: a day posting more than the first page and pagesPerNight pages show: the next nights read the rest from where the reading stopped, every record new on record; then the first page only", async () => {
    let count = 10;
    // Night 1: page 1 and its backfill to the list's end (pages 2 to 4): R 1 to R 10 held.
    const { catalog, data } = await listSite(
      world,
      "carry-bound",
      list(() => desc(count)),
    );

    // Thirty posted in a day (R 11 to R 40, ten pages): pages 1 to 4 read, R 29 to R 40.
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21")).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
    ]);
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));

    // Two more posted (the list shifts by two): the first page shows R 40, held; the reading
    // goes on from page 5 (now R 30 to R 28: R 28 not yet held) for three pages.
    count = 42;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(await newTitles(data, "2026-11-22")).toEqual(
      [...titles(41, 42), ...titles(22, 28)].sort(),
    );

    // Nothing posted: pages 8 to 10, R 13 to R 21.
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual([
      "/list",
      "/list?page=8",
      "/list?page=9",
      "/list?page=10",
    ]);
    expect(await newTitles(data, "2026-11-23")).toEqual(titles(13, 21));

    // Page 11 shows R 10, held before the overflow began: the reading ends there.
    await nightOn(catalog, data, "2026-11-24");
    expect(asked(data, "2026-11-24")).toEqual(["/list", "/list?page=11"]);
    expect(await newTitles(data, "2026-11-24")).toEqual(titles(11, 12));

    // Nothing pending, nothing posted: the first page only (P11).
    await nightOn(catalog, data, "2026-11-25");
    expect(asked(data, "2026-11-25")).toEqual(["/list"]);
    expect(await newTitles(data, "2026-11-25")).toEqual([]);
  });

  it("P7: overflows left unfinished on two nights in a row: read on from the later's stop until a record held before the earlier began; every record new on record once", async () => {
    let count = 10;
    const { catalog, data } = await listSite(
      world,
      "carry-stacked",
      list(() => desc(count)),
    );
    // Thirty posted, then twenty more the next day: each night's first page shows none held.
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    count = 60;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
    ]);
    const seen = [
      ...(await newTitles(data, "2026-11-21")),
      ...(await newTitles(data, "2026-11-22")),
    ];
    // The nights after read on until page 17 shows R 10 (held before the 21st); then page 1 only.
    let night = "";
    for (let day = 23; day < 33; day++) {
      night = `2026-11-${day}`;
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
      if (asked(data, night).length === 1) break;
    }
    // Five nights read on (pages 5 to 17, three a night), the sixth asks the first page only.
    expect(night).toBe("2026-11-28");
    expect(asked(data, night)).toEqual(["/list"]);
    expect(seen.sort()).toEqual(titles(11, 60));
  });

  it("P7: the list's files moved while an overflow is pending: the page showing the records held before (under new links) ends it, none of them new; those not yet read are", async () => {
    let count = 10;
    let dir = "d";
    const { catalog, data } = await listSite(
      world,
      "carry-moved",
      list(() => desc(count), {
        item: (n) => `<li><a href="/${dir}/r-${n}.pdf">R ${n}</a> <span>11/01/2026</span></li>`,
      }),
    );
    // Twenty-nine posted: pages 1 to 4 read (R 28 to R 39).
    count = 39;
    await nightOn(catalog, data, "2026-11-21");
    // Every link new at once (files moved), nothing posted: the first page is held by its look.
    dir = "files";
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/list"]);
    expect(await newTitles(data, "2026-11-22")).toEqual([]);
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(await newTitles(data, "2026-11-23")).toEqual(titles(19, 27));
    // Page 10 shows R 12, R 11 and R 10 (held before, under its old link): it ends there, the
    // first two new, R 10 not.
    await nightOn(catalog, data, "2026-11-24");
    expect(asked(data, "2026-11-24")).toEqual([
      "/list",
      "/list?page=8",
      "/list?page=9",
      "/list?page=10",
    ]);
    expect(await newTitles(data, "2026-11-24")).toEqual(titles(11, 18));
    await nightOn(catalog, data, "2026-11-25");
    expect(asked(data, "2026-11-25")).toEqual(["/list"]);
  });

  it("P7, P11: a first page that shows a record held before the overflow pending began ends it, with nothing more asked", async () => {
    let count = 10;
    const { catalog, data } = await listSite(
      world,
      "carry-shrunk",
      list(() => desc(count)),
    );
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    // The site took the thirty back: its first page shows R 10, held before the 21st.
    count = 10;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/list"]);
    count = 11;
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
    expect(await newTitles(data, "2026-11-23")).toEqual(["R 11"]);
  });

  it("P7, P12: a first page answered 304 while an overflow is pending: read from its stored copy (P8), the pages pending asked, their records new on record", async () => {
    let count = 10;
    const { catalog, data } = await listSite(
      world,
      "carry-304",
      etagged(
        () => count,
        list(() => desc(count)),
      ),
    );
    count = 30;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(19, 30));

    // Nothing posted: the first page answers 304; pages 5 to 7 (R 18 to R 10) are read.
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(await newTitles(data, "2026-11-22")).toEqual(titles(11, 18));
    expect(statusOf(data, "2026-11-22", "/list")).toBe(304);

    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
    expect(statusOf(data, "2026-11-23", "/list")).toBe(304);
    expect(await newTitles(data, "2026-11-23")).toEqual([]);
  });

  it("P7: a next page that failed that night (a 500, its retries used up) is read the next night, its records new on record", async () => {
    let count = 10;
    let down = false;
    const { catalog, data } = await listSite(
      world,
      "carry-503",
      list(() => desc(count), {
        fail: pageFails(
          3,
          () => down,
          (res) => res.writeHead(500, { "retry-after": "0" }).end("broken"),
        ),
      }),
    );

    // Nine posted (R 11 to R 19): pages 1 and 2 read, page 3 (R 13 to R 11) fails, each retry.
    count = 19;
    down = true;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21")).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=3",
      "/list?page=3",
    ]);
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(14, 19));

    // Page 3 answers: read, and page 4 shows R 10, held before: the reading ends.
    down = false;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=3", "/list?page=4"]);
    expect(await newTitles(data, "2026-11-22")).toEqual(titles(11, 13));

    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
  });

  it("P7, P11: a next page that fails three nights running (a 400 each night) is given up: the fourth night asks the first page only", async () => {
    let count = 10;
    let broken = false;
    const { catalog, data } = await listSite(
      world,
      "carry-given-up",
      list(() => desc(count), {
        fail: pageFails(3, () => broken, badRequest),
      }),
    );
    count = 19;
    broken = true;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21")).toEqual(["/list", "/list?page=2", "/list?page=3"]);
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=3"]);
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/list", "/list?page=3"]);
    await nightOn(catalog, data, "2026-11-24");
    expect(asked(data, "2026-11-24")).toEqual(["/list"]);
  });

  it("P7, P24: a carried-over overflow given up (its page failing nights running) raises an overflow-gave-up flag for a person, once, naming the page and the records left unread", async () => {
    let count = 10;
    let broken = false;
    const { site, catalog, data } = await listSite(
      world,
      "carry-flagged",
      list(() => desc(count), {
        fail: pageFails(3, () => broken, badRequest),
      }),
    );
    const overflowFlags = async () =>
      (await flagsOf(data)).filter((f) => f.kind === "overflow-gave-up");
    count = 19;
    broken = true;
    await nightOn(catalog, data, "2026-11-21");
    await nightOn(catalog, data, "2026-11-22");
    // Failing, not yet given up: nothing for a person yet.
    expect(await overflowFlags()).toEqual([]);
    await nightOn(catalog, data, "2026-11-23");
    // Given up the third night its page failed: R 11 to R 13 (on page 3) are never read.
    const page3 = site.url("/list?page=3");
    const flags = await overflowFlags();
    expect(flags).toHaveLength(1);
    expect(flags[0]?.source).toBe("list");
    expect(flags[0]?.detail).toContain(page3);
    expect(flags[0]?.detail).toContain("2026-11-21");
    expect(flags[0]?.detail).toContain("not the page 3 nights running");
    const table = await runMain(["flags", "--data", data]);
    expect(table.stdout).toContain(`overflow-gave-up\tlist\t`);
    // Not asked again, nor flagged again.
    await nightOn(catalog, data, "2026-11-24");
    expect(asked(data, "2026-11-24")).toEqual(["/list"]);
    expect(await overflowFlags()).toHaveLength(1);
  });

  it("P4, P7: an overflow left on the page's way, carried over a night a better way (the feed) answers: its page read with the page's own recipe, its records new on record; the feed's reader never given it", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    let feedFails = false;
    site.route(
      "/list",
      list(() => desc(count)),
    );
    site.route("/feed.rss", (_q, res) => {
      if (feedFails) return void res.writeHead(500, { "retry-after": "0" }).end("broken");
      const items = [count, count - 1, count - 2]
        .map(
          (n) =>
            `<item><title>R ${n}</title><link>${site.url(`/d/r-${n}.pdf`)}</link><pubDate>Sun, 01 Nov 2026 10:00:00 GMT</pubDate></item>`,
        )
        .join("");
      res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items}</channel></rss>`,
        );
    });
    const catalog = testerCatalog(world.dir, "carry-ways", [
      "  - id: list",
      "    government: city-of-test",
      "    records: bids",
      "    access: feed",
      `    url: ${site.url("/feed.rss")}`,
      "    alternates:",
      "      - access: page",
      `        url: ${site.url("/list")}`,
      "        extract: { items: li, title: a, link: a, date: span, next: a.next }",
    ]);
    const data = await dataDir(world, "carry-ways");
    // The feed fails the first night: the page is read, with its older pages (R 1 to R 10);
    // the feed answers the next.
    feedFails = true;
    await nightOn(catalog, data, "2026-11-19");
    feedFails = false;
    await nightOn(catalog, data, "2026-11-20");
    // The feed fails; the page is read: fifteen posted, its first page and three next pages
    // (R 25 to R 14) read, none held: left at page 5.
    feedFails = true;
    count = 25;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21").filter((p) => p.startsWith("/list"))).toEqual([
      "/list",
      "/list?page=2",
      "/list?page=3",
      "/list?page=4",
    ]);
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(14, 25));
    // The feed answers again: the page left pending is read as the page's list (R 13 to R 11,
    // new), and page 6 shows R 10, held before: done.
    feedFails = false;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/feed.rss", "/list?page=5", "/list?page=6"]);
    expect(await newTitles(data, "2026-11-22")).toEqual(titles(11, 13));
    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/feed.rss"]);
  });

  it("P7, P24: an overflow pending whose way in the catalog no longer lists (its URL changed) is ended, its page not asked, with an overflow-gave-up flag", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    site.route(
      "/list",
      list(() => desc(count)),
    );
    site.route(
      "/bids",
      list(() => desc(count)),
    );
    const source = (path: string) => [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url(path)}", ${RECIPE} }`,
    ];
    const data = await dataDir(world, "carry-url-changed");
    await nightOn(
      testerCatalog(world.dir, "carry-url-changed", source("/list")),
      data,
      "2026-11-20",
    );
    count = 40;
    await nightOn(
      testerCatalog(world.dir, "carry-url-changed", source("/list")),
      data,
      "2026-11-21",
    );
    // The catalog's URL is another now: the old list's page 5 is not asked (nor its pager).
    await nightOn(
      testerCatalog(world.dir, "carry-url-changed", source("/bids")),
      data,
      "2026-11-22",
    );
    expect(asked(data, "2026-11-22")).toEqual(["/bids"]);
    const flags = (await flagsOf(data)).filter((f) => f.kind === "overflow-gave-up");
    expect(flags).toHaveLength(1);
    expect(flags[0]?.detail).toContain(site.url("/list?page=5"));
    expect(flags[0]?.detail).toContain(
      `its way in, ${site.url("/list")}, is no longer the catalog's`,
    );
    await nightOn(
      testerCatalog(world.dir, "carry-url-changed", source("/bids")),
      data,
      "2026-11-23",
    );
    expect(asked(data, "2026-11-23")).toEqual(["/bids"]);
  });

  it("P7, P18: a page left pending that robots.txt disallows since is never asked; given up after three nights, flagged; the first page read as ever", async () => {
    let disallow = false;
    let count = 10;
    const { site, catalog, data } = await listSite(
      world,
      "carry-robots",
      list(() => desc(count)),
      (_q, res) => {
        if (!disallow) return void res.writeHead(404).end();
        res
          .writeHead(200, { "content-type": "text/plain" })
          .end("User-agent: *\nDisallow: /list?page\n");
      },
    );
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    disallow = true;
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      // Last night's robots.txt read a day ago, as the wall clock would have it: read afresh.
      const db = new Database(join(data, "nor.db"));
      db.prepare("update robots_cache set fetched_at = ?").run(
        new Date(Date.now() - 86_400_000).toISOString(),
      );
      db.close();
      await nightOn(catalog, data, night);
      // Logged, never sent (P18, P27).
      expect(asked(data, night).filter((p) => statusOf(data, night, p) !== undefined)).toEqual([
        "/list",
      ]);
      expect(outcomesOn(data, night).list?.outcome).toBe("ok");
    }
    // Left at page 5 the night before robots.txt changed: never asked since.
    expect(site.hits("/list?page=5")).toHaveLength(0);
    const flags = (await flagsOf(data)).map((f) => f.kind);
    expect(flags.filter((k) => k === "overflow-gave-up")).toHaveLength(1);
  });

  it("P7, P11: nor backfill restart (from the list's first page) while an overflow is pending: the backfill reads every page again, so the night after it ends asks the first page only", async () => {
    let count = 10;
    const { catalog, data } = await listSite(
      world,
      "carry-restart",
      list(() => desc(count)),
    );
    // Thirty posted: pages 1 to 4 read, left at page 5.
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    const restart = await runMain(["backfill", "restart", "list", "--data", data, "--by", "dana"]);
    expect(restart.code).toBe(0);
    // The backfill reads the list's fourteen pages again, three a night, to its end.
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"])
      await nightOn(catalog, data, night);
    expect(asked(data, "2026-11-26")).toEqual(["/list", "/list?page=14"]);
    // Every record read again by it: nothing left to carry over, nothing more asked (P11).
    await nightOn(catalog, data, "2026-11-27");
    expect(asked(data, "2026-11-27")).toEqual(["/list"]);
  });

  it("P7, P8, P12: a first page answered 304 and read from its copy by a mended recipe while an overflow is pending: its records brought up to date, none said changed; the carried-over pages' records new on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    site.route(
      "/list",
      etagged(
        () => count,
        list(() => desc(count)),
      ),
    );
    const catalog = (recipe: string) =>
      testerCatalog(world.dir, "carry-304-mended", [
        `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${recipe} }`,
      ]);
    const data = await dataDir(world, "carry-304-mended");
    await nightOn(catalog(RECIPE), data, "2026-11-20");
    count = 30;
    await nightOn(catalog(RECIPE), data, "2026-11-21");
    // The recipe mended (a kind read from each item); the first page answers 304.
    const mended =
      "extract: { items: li, title: a, link: a, date: span, kind: span, next: a.next }";
    await nightOn(catalog(mended), data, "2026-11-22");
    expect(statusOf(data, "2026-11-22", "/list")).toBe(304);
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(await newTitles(data, "2026-11-22")).toEqual(titles(11, 18));
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const firstPage = db
        .prepare(
          "select title, kind, changed_at from records where title in ('R 30', 'R 29', 'R 28') order by title",
        )
        .all();
      // Our reading of the page as it was, not the site's change: none said changed.
      expect(firstPage).toEqual([
        { title: "R 28", kind: "11/01/2026", changed_at: null },
        { title: "R 29", kind: "11/01/2026", changed_at: null },
        { title: "R 30", kind: "11/01/2026", changed_at: null },
      ]);
    } finally {
      db.close();
    }
  });

  it("P7: an older record moved to the top of the list (updated, re-sorted) while an overflow is pending does not end it: the pages pending are read on, every record new on record", async () => {
    let count = 10;
    let bumped = false;
    // R 5, updated, shown first (a list sorted by its last change).
    const { catalog, data } = await listSite(
      world,
      "carry-bumped",
      list(() => (bumped ? [5, ...desc(count).filter((n) => n !== 5)] : desc(count))),
    );
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));
    bumped = true;
    const seen: string[] = [];
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24"]) {
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
    }
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(seen.sort()).toEqual(titles(11, 28));
    await nightOn(catalog, data, "2026-11-25");
    expect(asked(data, "2026-11-25")).toEqual(["/list"]);
  });

  it("P7: a list of records alike (the same title, posted the same day): the pages pending are read on, not taken for the list's files moved; every record new on record", async () => {
    let count = 10;
    // Ten legal notices posted on October 1, thirty on November 2: each a title alike.
    const day = (n: number) => (n <= 10 ? "10/01/2026" : "11/02/2026");
    const { catalog, data } = await listSite(
      world,
      "carry-alike",
      list(() => desc(count), {
        item: (n) =>
          `<li><a href="/d/notice-${n}.pdf">Legal Notice</a> <span>${day(n)}</span></li>`,
      }),
    );
    const fresh = (night: string): Promise<number> => newCount(data, night);
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await fresh("2026-11-21")).toBe(12);
    let total = 12;
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24"]) {
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

  it("P7: an overflow carried over is said where the operator looks (nor site, its --json, nor status --json): since when, the page it reads on from, its failed nights; none once it is done", async () => {
    let count = 10;
    let broken = false;
    const { site, catalog, data } = await listSite(
      world,
      "carry-said",
      list(() => desc(count), {
        fail: pageFails(5, () => broken, badRequest),
      }),
    );
    const host = site.host;
    const said = async () => {
      const json = await runMain(["site", host, "--data", data, "--json"]);
      const line = json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { kind?: string; source?: string; overflow?: unknown })
        .find((l) => l.kind === "backfill" && l.source === "list");
      const status = JSON.parse((await runMain(["status", "--data", data, "--json"])).stdout) as {
        id: string;
        backfill: { overflow: unknown };
      }[];
      const text = (await runMain(["site", host, "--data", data])).stdout;
      return {
        json: line?.overflow,
        status: status.find((r) => r.id === "list")?.backfill.overflow,
        text,
      };
    };
    expect((await said()).json).toBeNull();
    count = 40;
    broken = true;
    await nightOn(catalog, data, "2026-11-21");
    await nightOn(catalog, data, "2026-11-22");
    const pending = {
      since: "2026-11-21",
      url: site.url("/list?page=5"),
      failedNights: 1,
      unansweredNights: 0,
    };
    const now = await said();
    expect(now.json).toEqual(pending);
    expect(now.status).toEqual(pending);
    expect(now.text).toContain(
      `a day's overflow carried over since the night of 2026-11-21: read on from ${site.url("/list?page=5")} (it failed 1 night running so far)`,
    );
    broken = false;
    await nightOn(catalog, data, "2026-11-23");
    await nightOn(catalog, data, "2026-11-24");
    await nightOn(catalog, data, "2026-11-25");
    await nightOn(catalog, data, "2026-11-26");
    const after = await said();
    expect(asked(data, "2026-11-26")).toEqual(["/list"]);
    expect(after.json).toBeNull();
    expect(after.text).not.toContain("overflow");
  });

  it("P7, P21: a next page the site said no to (403) that night is read the next night, its records new on record", async () => {
    let count = 10;
    let no = false;
    const { catalog, data } = await listSite(
      world,
      "carry-403",
      list(() => desc(count), {
        fail: pageFails(
          2,
          () => no,
          (res) => res.writeHead(403, { "content-type": "text/plain" }).end("Forbidden"),
        ),
      }),
    );

    // Five posted (R 11 to R 15): page 1 read, page 2 (R 12 to R 10) said no.
    count = 15;
    no = true;
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21")).toEqual(["/list", "/list?page=2"]);
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(13, 15));

    no = false;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=2"]);
    expect(await newTitles(data, "2026-11-22")).toEqual(titles(11, 12));

    await nightOn(catalog, data, "2026-11-23");
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
  });
});
