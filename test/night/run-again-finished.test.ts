import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's finding: `nor night` run again on a night that had finished (within its
 * deadline) sent nothing, yet moved the night's end to the moment of the second run, which
 * the public pages then said ("ran from … and finished …"). A run with nothing to do keeps the
 * night's end; one that checks something (a source added since) ends it anew.
 */
const world = testerWorld("nor-run-again-");

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();
const feed = (_q: IncomingMessage, res: ServerResponse) => {
  res
    .writeHead(200, { "content-type": "application/rss+xml" })
    .end(
      '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1/a</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>',
    );
};

function nightRow(data: string, night: string): { finished_at: string | null; runs: number } {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db.prepare("select finished_at, runs from nights where night = ?").get(night) as {
      finished_at: string | null;
      runs: number;
    };
  } finally {
    db.close();
  }
}

describe("a finished night run again", () => {
  it("P13, P27: with nothing left to do, it asks nothing and keeps the night's end; with a source added, it checks that one and ends anew", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/a.rss", feed);
    site.route("/b.rss", feed);
    const one = [
      `  - { id: s-a, government: city-of-test, records: agendas, access: feed, url: "${site.url("/a.rss")}" }`,
    ];
    const catalog = testerCatalog(world.dir, "again", one);
    const data = join(world.dir, "again");
    await nightOn(catalog, data, "2026-11-05");
    const first = nightRow(data, "2026-11-05");
    expect(first.finished_at).not.toBeNull();
    const asked = site.requests.length;
    await new Promise((r) => setTimeout(r, 20));
    await nightOn(catalog, data, "2026-11-05");
    expect(site.requests.length).toBe(asked);
    expect(nightRow(data, "2026-11-05")).toEqual({ finished_at: first.finished_at, runs: 2 });
    // A source added since: checked, and the night's end is this run's.
    const two = testerCatalog(world.dir, "again", [
      ...one,
      `  - { id: s-b, government: city-of-test, records: minutes, access: feed, url: "${site.url("/b.rss")}" }`,
    ]);
    await nightOn(two, data, "2026-11-05");
    expect(site.hits("/b.rss")).toHaveLength(1);
    const third = nightRow(data, "2026-11-05");
    expect(Date.parse(third.finished_at ?? "")).toBeGreaterThan(
      Date.parse(first.finished_at ?? ""),
    );
  });
});
