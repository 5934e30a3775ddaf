import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nor } from "../cli/cli-capture.js";
import {
  nightOn,
  noRobots,
  outcomesOn,
  testerCatalog,
  testerWorld,
} from "../night/tester-nights.js";
import { ask, type NewAnswer } from "./tester-new-world.js";

/**
 * Review of "a list read empty by the same reader counts as read" (docs/catalog.md "New on
 * record, and already listed"): the docs say a way in that answered something else than its kind
 * (a feed's address answering a page for people, P4) is no read, and its list is read as for the
 * first time when it first answers as its kind.
 */
const world = testerWorld("nor-review-readbefore-");

const PAGE = "<html><body><h1>Site under maintenance</h1><p>Back soon.</p></body></html>";
const rss = (n: number) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title>${Array.from(
    { length: n },
    (_, i) =>
      `<item><title>Agenda ${i + 1}</title><link>https://agendas.example/a/${i + 1}</link><guid>a-${i + 1}</guid><pubDate>Mon, 0${i + 1} Nov 2026 10:00:00 GMT</pubDate></item>`,
  ).join("")}</channel></rss>`;

describe("review: an empty read counts as read only when a list was read", () => {
  it("P4, P7: a feed's only way in that answered a page for people (not a feed) is no read: its first feed is already listed", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let feed = false;
    site.route("/agendas.rss", (_q, res) => {
      if (feed)
        return void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(4));
      res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    });
    const catalog = testerCatalog(world.dir, "feed-html", [
      `  - { id: agendas, government: city-of-test, records: agendas, access: feed, url: "${site.url("/agendas.rss")}" }`,
    ]);
    const data = join(world.dir, "feed-html");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    expect(outcomesOn(data, "2026-11-21").agendas?.outcome).toBe("no-records");
    feed = true;
    await nightOn(catalog, data, "2026-11-22");
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", ["/api/new"]);
    // The feed's first read as a feed: what it lists was there before (P7).
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual([]);
    expect(fresh?.json?.counts.alreadyListed).toBe(4);
  });

  it("P7: a paged list read empty on the nights before, that posts more bids in a day than its first page shows: every one is new on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 0;
    const PER_PAGE = 5;
    site.route("/bids", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i);
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/d/bid-${n}.pdf">Bid ${n}</a> <span>11/${String(n).padStart(2, "0")}/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/bids?page=${page + 1}">Next</a>` : ""}`,
        );
    });
    const catalog = testerCatalog(world.dir, "empty-paged", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${site.url("/bids")}", extract: { items: li, title: a, link: a, date: span, next: a.next } }`,
    ]);
    const data = join(world.dir, "empty-paged");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    count = 7;
    await nightOn(catalog, data, "2026-11-22");
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", [
      "/api/new?night=2026-11-22",
    ]);
    expect((fresh?.json?.items ?? []).map((i) => i.title).sort()).toEqual(
      ["Bid 1", "Bid 2", "Bid 3", "Bid 4", "Bid 5", "Bid 6", "Bid 7"].sort(),
    );
  });

  it("P6, P7, P12: a recipe changed on a 304 night, then a genuinely new record on a 200; then another change with a new record: exactly the new ones are new", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let n = 3;
    const etag = () => `"v${n}"`;
    site.route("/list", (req, res) => {
      if (req.headers["if-none-match"] === etag()) return void res.writeHead(304).end();
      res.writeHead(200, { "content-type": "text/html", etag: etag() }).end(
        `<ul>${Array.from({ length: n }, (_, i) => n - i)
          .map(
            (i) =>
              `<li data-id="B${i}"><a href="/bid/${i}">Bid ${i}</a> <b>Bid no. ${i}</b> <span>11/${String(i).padStart(2, "0")}/2026</span></li>`,
          )
          .join("")}</ul>`,
      );
    });
    const cat = (name: string, extract: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: rc, government: city-of-test, records: bids, url: "${site.url("/list")}", extract: { ${extract} } }`,
      ]);
    const a = cat("rc-a", "items: li, title: a, link: a, date: span");
    const b = cat("rc-b", 'items: li, title: a, link: a, date: span, id: "@data-id"');
    const c = cat("rc-c", 'items: li, title: b, link: a, date: span, id: "@data-id"');
    const data = join(world.dir, "rc");
    await nightOn(a, data, "2026-11-20");
    await nightOn(a, data, "2026-11-21"); // 304
    await nightOn(b, data, "2026-11-22"); // 304, read again by the recipe that takes the id
    n = 4;
    await nightOn(b, data, "2026-11-23"); // 200, Bid 4 posted
    n = 5;
    await nightOn(c, data, "2026-11-24"); // 200, recipe changed (titles), Bid 5 posted
    const [n22, n23, n24, src] = await ask<
      NewAnswer & { newestRecords: { title: string }[]; counts?: unknown }
    >(data, "2026-11-24T15:00:00Z", [
      "/api/new?night=2026-11-22",
      "/api/new?night=2026-11-23",
      "/api/new?night=2026-11-24",
      "/api/sources/rc",
    ]);
    expect((n22?.json?.items ?? []).map((i) => i.title)).toEqual([]);
    expect((n23?.json?.items ?? []).map((i) => i.title)).toEqual(["Bid no. 4"]); // as it reads now
    expect((n24?.json?.items ?? []).map((i) => i.title)).toEqual(["Bid no. 5"]);
    // Each record held once.
    expect((src?.json?.newestRecords ?? []).length).toBe(5);
  });

  it("P8, P6: reparse of a recipe that reads the platform's id where it took the link says what the night would do: each record matched by its link, none added nor removed", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/plist",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<ul>${[1, 2, 3].map((i) => `<li data-id="B${i}"><a href="/bid/${i}">Bid ${i}</a> <span>11/0${i}/2026</span></li>`).join("")}</ul>`,
          ),
    );
    const cat = (name: string, extract: string) =>
      testerCatalog(world.dir, name, [
        `  - { id: rp, government: city-of-test, records: bids, url: "${site.url("/plist")}", extract: { ${extract} } }`,
      ]);
    const a = cat("rp-a", "items: li, title: a, link: a, date: span");
    const b = cat("rp-b", 'items: li, title: a, link: a, date: span, id: "@data-id"');
    const data = join(world.dir, "rp");
    await nightOn(a, data, "2026-11-20");
    const r = await nor("reparse", "--data", data, "--catalog", b);
    expect(r.stdout).toMatch(/rp: .*would add 0, would remove 0/);
    // The night with that recipe: nothing new, each record held once.
    await nightOn(b, data, "2026-11-21");
    const [n21, src] = await ask<NewAnswer & { newestRecords: unknown[] }>(
      data,
      "2026-11-21T15:00:00Z",
      ["/api/new?night=2026-11-21", "/api/sources/rp"],
    );
    expect(n21?.json?.items ?? []).toEqual([]);
    expect((src?.json?.newestRecords ?? []).length).toBe(3);
  });

  it("P7: a bids page read empty, whose catalog entry is then confirmed and given a name and notes (its recipe as it was), says its first bid new", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let bid = false;
    site.route(
      "/Bids.aspx",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            bid
              ? '<div><a href="Bids.aspx?bidID=417">Road Salt 2026-2027</a></div>'
              : "<div>There are no open bid postings at this time.</div>",
          ),
    );
    const line = (more: string) =>
      `  - { id: vb, government: city-of-test, records: bids, url: "${site.url("/Bids.aspx")}", extract: { items: "a[href*='bidID=']" }${more} }`;
    const before = testerCatalog(world.dir, "vb-a", [line("")]);
    const after = testerCatalog(world.dir, "vb-b", [
      line(', name: Village bids, notes: "seen by a person", confirmed: true'),
    ]);
    const data = join(world.dir, "vb");
    await nightOn(before, data, "2026-11-20");
    await nightOn(before, data, "2026-11-21");
    // The entry confirmed (a person saw the page) the day the first bid is posted.
    bid = true;
    await nightOn(after, data, "2026-11-22");
    const [fresh] = await ask<NewAnswer>(data, "2026-11-22T15:00:00Z", [
      "/api/new?night=2026-11-22",
    ]);
    expect((fresh?.json?.items ?? []).map((i) => i.title)).toEqual(["Road Salt 2026-2027"]);
  });
});
