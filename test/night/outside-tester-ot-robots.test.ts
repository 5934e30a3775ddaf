import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, oneItemFeed, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What an outside tester of robots.txt (ot-robots) found, proved from a real `nor night` against
 * loopback sites and what they saw:
 * - a night used the robots.txt its origin's last night had read when that read was a little less
 *   than a day old (a lane that starts a few minutes earlier in tonight's night than it did in
 *   last night's), so tonight was never read afresh: a Disallow its owner added just after last
 *   night's read was first obeyed the night after next, two days on, where the site-owners page
 *   says "It reads your robots.txt once a day" and "the checker sees a change within a day" (and
 *   the research notes: "re-fetch before each nightly run rather than counting on 'roughly
 *   daily'").
 */
const world = testerWorld("nor-ot-robots-");

const DAY_MS = 24 * 60 * 60 * 1000;

/** The store's copy of `origin`'s robots.txt made `ageMs` old, as the wall clock would have it. */
function ageRobotsCopy(data: string, origin: string, ageMs: number): void {
  const db = new Database(join(data, "nor.db"));
  try {
    const n = db
      .prepare("update robots_cache set fetched_at = ? where origin = ?")
      .run(new Date(Date.now() - ageMs).toISOString(), origin).changes;
    expect(n).toBe(1);
  } finally {
    db.close();
  }
}

describe("found from outside, robots.txt (ot-robots)", () => {
  it("P16, P18: each night reads robots.txt afresh: a Disallow added just after last night's read (23 h 55 min ago) keeps tonight's check off the page", async () => {
    const site = await world.fleet.server();
    let robots = "User-agent: *\nDisallow: /private\n";
    site.route("/robots.txt", (_q: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "text/plain" }).end(robots);
    });
    site.route("/agendas.rss", oneItemFeed);
    const catalog = testerCatalog(world.dir, "reread", [
      `  - { id: agendas, government: city-of-test, records: agendas, access: feed, url: "${site.url("/agendas.rss")}" }`,
    ]);
    const data = join(world.dir, "reread");
    await nightOn(catalog, data, "2026-12-04");
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt", "/agendas.rss"]);

    // Last night's lane read robots.txt five minutes later in its night than tonight's lane
    // starts; right after that read, the owner closed the site to the checker.
    ageRobotsCopy(data, site.origin, DAY_MS - 5 * 60_000);
    robots = "User-agent: public-records-check\nDisallow: /\n";

    await nightOn(catalog, data, "2026-12-05");
    expect(site.requests.slice(2).map((r) => r.path)).toEqual(["/robots.txt"]);
    expect(outcomesOn(data, "2026-12-05")["agendas"]?.outcome).toBe("disallowed");
  });
});
