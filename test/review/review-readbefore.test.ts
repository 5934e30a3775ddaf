import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
});
