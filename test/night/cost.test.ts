import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli } from "./cli-night.js";

/**
 * What a night costs a site when nothing changed (P11): robots.txt at most once a day per
 * origin plus one request for the records page or feed, answered 304 thanks to the validators
 * taken from the private copy (P12), whose records are read from that copy (P8).
 */
const ETAG = '"feed-v1"';
const LAST_MODIFIED = "Wed, 04 Nov 2026 12:00:00 GMT";

const feed = (origin: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>${origin}/</link><description>d</description>${[
    1, 2, 3,
  ]
    .map(
      (i) =>
        `<item><title>Council agenda ${i}</title><link>${origin}/agenda/${i}</link><guid>${origin}/agenda/${i}</guid><pubDate>Tue, 0${i} Nov 2026 18:00:00 GMT</pubDate></item>`,
    )
    .join("")}</channel></rss>`;

const page = (origin: string) =>
  `<html><body><ul>${[1, 2].map((i) => `<li class="bid"><a href="${origin}/bid/${i}">Bid ${i}</a> <span>11/0${i}/2026</span></li>`).join("")}</ul></body></html>`;

async function runNight(catalog: string, data: string, night: string): Promise<number | null> {
  const r = await nightCli(catalog, data, night);
  if (r.code !== 0) process.stderr.write(r.stderr);
  return r.code;
}

describe("the cost of an unchanged night", () => {
  let fleet: Fleet;
  let dir: string;
  let feedSite: FleetServer;
  let pageSite: FleetServer;

  beforeAll(async () => {
    fleet = await startFleet();
    feedSite = await fleet.server({ host: "127.0.0.2" });
    pageSite = await fleet.server({ host: "127.0.0.3" });
    feedSite.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(200).end("User-agent: *\nAllow: /\n"),
    );
    feedSite.route("/agendas.rss", (req, res) => {
      if (req.headers["if-none-match"] === ETAG)
        return void res.writeHead(304, { etag: ETAG }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag: ETAG })
        .end(feed(feedSite.origin));
    });
    pageSite.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    pageSite.route("/bids", (req, res) => {
      if (req.headers["if-modified-since"] === LAST_MODIFIED)
        return void res.writeHead(304, { "last-modified": LAST_MODIFIED }).end();
      res
        .writeHead(200, { "content-type": "text/html", "last-modified": LAST_MODIFIED })
        .end(page(pageSite.origin));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-cost-"));
    writeFileSync(
      join(dir, "catalog.yaml"),
      [
        "governments:",
        "  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }",
        "sources:",
        "  - id: test-agendas",
        "    government: village-of-test",
        "    records: agendas",
        "    access: feed",
        `    url: ${feedSite.url("/agendas.rss")}`,
        "  - id: test-bids",
        "    government: village-of-test",
        "    records: bids",
        "    access: page",
        `    url: ${pageSite.url("/bids")}`,
        "    extract: { items: li.bid, title: a, link: a, date: span }",
        "",
      ].join("\n"),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P11, P12, P8: a second night costs each source one conditional request answered 304, robots.txt is not asked again the same day, and the records come from the stored copy", async () => {
    const catalog = join(dir, "catalog.yaml");
    expect(await runNight(catalog, dir, "2026-11-05")).toBe(0);
    const night1 = [...feedSite.requests, ...pageSite.requests].length;
    expect(feedSite.requests.map((r) => r.path)).toEqual(["/robots.txt", "/agendas.rss"]);
    expect(pageSite.requests.map((r) => r.path)).toEqual(["/robots.txt", "/bids"]);

    // As if the first night had died after archiving but before committing its records:
    // the second night must get them back from the private copy, not from the site.
    const w = new Database(join(dir, "nor.db"));
    w.prepare("delete from records").run();
    w.close();

    expect(await runNight(catalog, dir, "2026-11-06")).toBe(0);
    const feed2 = feedSite.requests.slice(2);
    const page2 = pageSite.requests.slice(2);
    // P11: one request per source; robots.txt was read less than a day ago (P16).
    expect(feed2.map((r) => r.path)).toEqual(["/agendas.rss"]);
    expect(page2.map((r) => r.path)).toEqual(["/bids"]);
    expect(night1).toBe(4);
    // P12: the validators went back.
    expect(feed2[0]?.headers["if-none-match"]).toBe(ETAG);
    expect(page2[0]?.headers["if-modified-since"]).toBe(LAST_MODIFIED);

    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare("select source_id, outcome from night_sources where night = ? order by source_id")
        .all("2026-11-06") as { source_id: string; outcome: string }[];
      expect(rows).toEqual([
        { source_id: "test-agendas", outcome: "unchanged" },
        { source_id: "test-bids", outcome: "unchanged" },
      ]);
      const counts = db
        .prepare(
          "select source_id, count(*) as n from records group by source_id order by source_id",
        )
        .all() as { source_id: string; n: number }[];
      // P8: the records were read again from the stored copies, none doubled.
      expect(counts).toEqual([
        { source_id: "test-agendas", n: 3 },
        { source_id: "test-bids", n: 2 },
      ]);
    } finally {
      db.close();
    }
  }, 120_000);
});
