import { join } from "node:path";
import { parseJsonFeed, parseRssFeed } from "feedsmith";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";
import { ask, type NewAnswer } from "../review/tester-new-world.js";

/**
 * P6 (docs/api.md, Feeds): a record new on record in the 30 nights before the feed's window that
 * a night of the window retitled is in the feed as an updated entry (the same id, published when
 * first seen, updated when it changed), in every format; never new again: /new's counts, its
 * records and /api/new's items stay what is new, and /api/new says it apart (`changed`).
 */
const world = testerWorld("nor-feed-changed-later-");

describe("P6: a record retitled nights after it was new is an updated entry of the feeds", () => {
  it("P6: JSON Feed and RSS carry it with its first seen date (JSON Feed's date_modified when it changed); /api/new counts it nowhere as new", async () => {
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
    await nightOn(catalog, data, "2026-11-22");
    state = "cancelled";
    await nightOn(catalog, data, "2026-11-24");

    const [json, rss, api, day, page, openapi] = await ask<
      NewAnswer & { changed: { title: string; changedAt: string }[] }
    >(data, "2026-11-24T15:00:00Z", [
      "/new.json",
      "/new.rss",
      "/api/new",
      "/api/new?night=2026-11-21",
      "/new",
      "/api/openapi.json",
    ]);
    const item = parseJsonFeed(json?.text ?? "").items?.find((i) =>
      i.title?.endsWith("Bid for road salt"),
    );
    expect(item?.title).toBe("CANCELLED: Bid for road salt");
    expect(item?.date_published?.slice(0, 10)).toBe(
      (
        day?.json?.items.find((i) => i.title.endsWith("road salt")) as { firstSeenAt?: string }
      )?.firstSeenAt?.slice(0, 10),
    );
    expect(item?.date_modified).toBeDefined();
    expect(Date.parse(item?.date_modified ?? "")).toBeGreaterThan(
      Date.parse(item?.date_published ?? ""),
    );
    expect(parseJsonFeed(json?.text ?? "").description).toContain("retitled, redated");
    const rssItem = parseRssFeed(rss?.text ?? "").items?.find(
      (i) => i.title === "CANCELLED: Bid for road salt",
    );
    expect(rssItem?.guid?.value).toBe(item?.id);
    // Never new again: not among what is new, nor counted.
    expect(api?.json?.counts.total).toBe(0);
    expect(api?.json?.items).toEqual([]);
    expect(api?.json?.changed.map((c) => c.title)).toEqual(["CANCELLED: Bid for road salt"]);
    expect(api?.json?.changed[0]?.changedAt).toBe(item?.date_modified);
    expect(page?.text).toContain("CANCELLED: Bid for road salt");
    // The answer, `changed` and all, is the one /api/openapi.json describes.
    const doc = openapi?.json as unknown as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const schema = doc.paths["/api/new"]?.get.responses["200"]?.content["application/json"]?.schema;
    const valid = z
      .fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
      .safeParse(api?.json);
    expect(valid.success, JSON.stringify(valid.error?.issues.slice(0, 3))).toBe(true);
  }, 60_000);
});
