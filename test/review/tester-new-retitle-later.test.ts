import { join } from "node:path";
import { parseAtomFeed } from "feedsmith";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask } from "./tester-new-world.js";

/**
 * Outside tester (feeds): docs/api.md, Feeds: "a record the list shows retitled, redated or of
 * another kind since (a bid retitled "CANCELLED": brought up to date, never new again) says when
 * that was, so a reader that holds it takes the new title: Atom `updated` …". A bid is cancelled
 * days after it was posted, not the next morning. The feed the directory's pages offer
 * (`/new.atom`, `<link rel="alternate">` of the home page and /new) holds only what was first
 * seen since yesterday, so a bid cancelled three nights after it was new is in no entry of it:
 * a reader that took "Bid for road salt" from it never learns it was cancelled.
 */
const world = testerWorld("nor-tester-new-retitle-later-");

describe("tester-new: a bid cancelled days after it was new", () => {
  it("P6: the feed a reader subscribed to says the bid it announced was retitled CANCELLED", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let state: "none" | "new" | "cancelled" = "none";
    site.route("/bids", (_q, res) => {
      const rows = [
        ...(state === "none"
          ? []
          : [
              `<li><a href="/bid/salt.pdf">${state === "cancelled" ? "CANCELLED: " : ""}Bid for road salt</a> <span>11/30/2026</span></li>`,
            ]),
        `<li><a href="/bid/old.pdf">Bid for paving</a> <span>10/01/2026</span></li>`,
      ];
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(`<ul>${rows.join("")}</ul>`);
    });
    const catalog = testerCatalog(world.dir, "bids", [
      `  - { id: bids, government: city-of-test, records: bids, url: "${site.url("/bids")}", extract: { items: li, title: a, link: a, date: span } }`,
    ]);
    const data = join(world.dir, "bids");
    await nightOn(catalog, data, "2026-11-20");
    state = "new";
    await nightOn(catalog, data, "2026-11-21");
    // The reader takes the feed the morning after.
    const [first] = await ask(data, "2026-11-21T15:00:00Z", ["/new.atom"]);
    await nightOn(catalog, data, "2026-11-22");
    await nightOn(catalog, data, "2026-11-23");
    state = "cancelled";
    await nightOn(catalog, data, "2026-11-24");

    const [home, later] = await ask(data, "2026-11-24T15:00:00Z", ["/", "/new.atom"]);
    // The feed the pages offer is /new.atom.
    expect(home?.text).toMatch(/<link[^>]+rel="alternate"[^>]+href="[^"]*\/new\.atom"/);
    const announced = parseAtomFeed(first?.text ?? "").entries?.find(
      (e) => e.title?.value === "Bid for road salt",
    );
    expect(announced).toBeDefined();
    // Three nights later the site cancels it: the reader's feed says so.
    const entry = parseAtomFeed(later?.text ?? "").entries?.find((e) => e.id === announced?.id);
    expect(entry?.title?.value).toBe("CANCELLED: Bid for road salt");
  }, 60_000);
});
