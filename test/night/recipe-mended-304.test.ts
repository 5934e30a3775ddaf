import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "./cli-night.js";

/**
 * P8, P12 and records.changed_at (migration 028): a recipe mended in the catalog (here: a kind
 * read from each item) while the site's page stays as it was. The next night the site answers
 * 304; the copy is read again with the mended recipe (the page's key holds the way), and every
 * record is brought up to date with its kind. That is our reading, not the site's change: no
 * record is said changed, so its feed entries do not all say "updated" at once. A retitle the
 * site makes afterwards (a 200) still is. Real CLI, loopback server.
 */
const page = (origin: string, cancelled: boolean) =>
  `<html><body><ul>${[1, 2]
    .map(
      (i) =>
        `<li class="bid"><a href="${origin}/bid/${i}">${cancelled && i === 1 ? "CANCELLED: " : ""}Bid ${i}</a> <span>11/0${i}/2026</span> <em>bids</em></li>`,
    )
    .join("")}</ul></body></html>`;

const entry = (url: string, kind: boolean) => [
  "id: bids",
  "government: village-of-test",
  "records: bids",
  "access: page",
  `url: ${url}`,
  `extract: { items: li.bid, title: a, link: a, date: span${kind ? ", kind: em" : ""} }`,
  "backfill: { pagesPerNight: 0 }",
];

describe("a recipe mended, the site's page as it was (records.changed_at)", () => {
  let fleet: Fleet;
  let dir: string;
  beforeAll(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-recipe-304-"));
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8, P12: the 304's copy read by the mended recipe brings the records up to date, none said changed; a retitle the site makes is", async () => {
    const site = await fleet.server();
    let cancelled = false;
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/list", (req, res) => {
      const etag = cancelled ? '"v2"' : '"v1"';
      if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
      res.writeHead(200, { "content-type": "text/html", etag }).end(page(site.origin, cancelled));
    });
    const night = async (n: string, kind: boolean) => {
      const catalog = writeCatalog(dir, [entry(site.url("/list"), kind)]);
      const r = await nightCli(catalog, dir, n);
      expect(r.code, r.stderr).toBe(0);
    };
    const rows = () => {
      const db = new Database(join(dir, "nor.db"), { readonly: true });
      try {
        return db
          .prepare("select title, kind, changed_at from records order by record_id")
          .all() as { title: string; kind: string | null; changed_at: string | null }[];
      } finally {
        db.close();
      }
    };
    const outcome = (n: string) => {
      const db = new Database(join(dir, "nor.db"), { readonly: true });
      try {
        return (
          db.prepare("select outcome from night_sources where night = ?").get(n) as {
            outcome: string;
          }
        ).outcome;
      } finally {
        db.close();
      }
    };
    await night("2026-11-05", false);
    expect(rows().map((r) => r.kind)).toEqual([null, null]);
    // The recipe mended; the site answers 304.
    await night("2026-11-06", true);
    expect(outcome("2026-11-06")).toBe("unchanged");
    expect(rows()).toEqual([
      { title: "Bid 1", kind: "bids", changed_at: null },
      { title: "Bid 2", kind: "bids", changed_at: null },
    ]);
    // The site retitles a bid: a full answer, and that record is said changed.
    cancelled = true;
    await night("2026-11-07", true);
    const after = rows();
    expect(after[0]?.title).toBe("CANCELLED: Bid 1");
    expect(after[0]?.changed_at).not.toBeNull();
    expect(after[1]?.changed_at).toBeNull();
  });
});
