import { join } from "node:path";
import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask } from "./tester-new-world.js";

/**
 * Review (P6, docs/api.md Feeds): /new's feeds after real nights, a record new in the window and
 * retitled in it beside one new before it and retitled in it, and a record already listed
 * retitled: each record one entry (an id twice is an invalid feed), `updated` never before
 * `published`, the feed's own `updated` its latest entry's, the already listed one in none, and
 * the page's "Changed" section written as text.
 */
const world = testerWorld("nor-review-feed-web-");

describe("review-feed: /new's feeds with records new and changed in one window", () => {
  it("P6: each record once, updated never before published, the already listed never, the page's section escaped", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let night = 0;
    site.route("/bids", (_q, res) => {
      const rows: string[] = [];
      if (night >= 2)
        rows.push(
          `<li><a href="/bid/gravel.pdf">${night >= 4 ? "&lt;b&gt;Gravel&lt;/b&gt; &amp; co" : "Bid for gravel"}</a> <span>12/01/2026</span></li>`,
        );
      if (night >= 1)
        rows.push(
          `<li><a href="/bid/salt.pdf">${night >= 3 ? "CANCELLED: " : ""}Bid for road salt</a> <span>11/30/2026</span></li>`,
        );
      rows.push(
        `<li><a href="/bid/old.pdf">Bid for paving${night >= 4 ? " (amended)" : ""}</a> <span>10/01/2026</span></li>`,
      );
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(`<ul>${rows.join("")}</ul>`);
    });
    const catalog = testerCatalog(world.dir, "bids", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${site.url("/bids")}", extract: { items: li, title: a, link: a, date: span } }`,
    ]);
    const data = join(world.dir, "bids");
    await nightOn(catalog, data, "2026-11-19"); // first read: paving, already listed
    night = 1;
    await nightOn(catalog, data, "2026-11-20"); // salt new
    night = 2;
    await nightOn(catalog, data, "2026-11-21"); // gravel new
    night = 3;
    await nightOn(catalog, data, "2026-11-22"); // salt cancelled
    night = 4;
    await nightOn(catalog, data, "2026-11-23"); // gravel retitled, paving amended

    const [week, since, json, page, on23] = await ask<{
      items: { recordId: string }[];
      changed: { recordId: string }[];
    }>(data, "2026-11-23T15:00:00Z", [
      "/new.atom?window=7d",
      "/new.atom",
      "/new.json",
      "/new",
      "/api/new?night=2026-11-23",
    ]);
    for (const r of [since, week, json]) expect(r?.status).toBe(200);
    for (const feed of [since, week]) {
      const f = parseAtomFeed(feed?.text ?? "");
      const ids = (f.entries ?? []).map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const e of f.entries ?? []) {
        expect(Date.parse(e.updated ?? "")).toBeGreaterThanOrEqual(Date.parse(e.published ?? ""));
        expect(Date.parse(f.updated ?? "")).toBeGreaterThanOrEqual(Date.parse(e.updated ?? ""));
      }
      // The record already listed when its page was first read is never an entry, changed or not.
      expect((f.entries ?? []).some((e) => e.title?.value?.includes("paving"))).toBe(false);
    }
    // Since yesterday (Nov 22–23): gravel new on Nov 21, salt on Nov 20, both changed in it.
    const titles = (parseAtomFeed(since?.text ?? "").entries ?? []).map((e) => e.title?.value);
    expect(titles).toEqual(["<b>Gravel</b> & co", "CANCELLED: Bid for road salt"]);
    const jf = parseJsonFeed(json?.text ?? "");
    expect(new Set(jf.items?.map((i) => i.id)).size).toBe(jf.items?.length);
    // The night of Nov 23 retitled gravel (new on Nov 21), not salt (Nov 22's).
    expect(on23?.json?.changed).toHaveLength(1);
    expect(on23?.json?.changed[0]?.recordId).toContain("gravel");
    // In the last 7 days both are new: each once, none an updated entry besides.
    expect((parseAtomFeed(week?.text ?? "").entries ?? []).length).toBe(2);
    // The page's section: its heading labels it, the title is text, not markup.
    expect(page?.text).toMatch(
      /<section aria-labelledby="changed"><h2 id="changed">Changed since yesterday<\/h2>/,
    );
    expect(page?.text).toContain("&lt;b&gt;Gravel&lt;/b&gt; &amp; co");
    expect(page?.text).not.toContain("<b>Gravel</b>");
    expect(page?.text).not.toContain("paving (amended)");
  }, 90_000);
});
