import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, oneItemFeed, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's finding: `nor night` run again on a night that had finished (within its
 * deadline) sent nothing, yet moved the night's end to the moment of the second run, which
 * the public pages then said ("ran from … and finished …"). A run with nothing to do keeps the
 * night's end; one that checks something (a source added since) ends it anew.
 */
const world = testerWorld("nor-run-again-");

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
    site.route("/a.rss", oneItemFeed);
    site.route("/b.rss", oneItemFeed);
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
