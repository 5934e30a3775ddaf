/**
 * Review 8 (second pass): text PostgreSQL cannot hold. A JavaScript string may contain U+0000
 * and SQLite keeps it; PostgreSQL's text refuses it ("invalid byte sequence for encoding
 * UTF8: 0x00", 22021). Two places put a site's bytes into text columns as they came:
 * - a record's title (cleanText keeps a raw NUL from a feed or a JSON API), in the night
 *   store's per-source commit;
 * - a robots.txt body (decodeRobotsBody keeps NUL: valid UTF-8; a UTF-16 robots.txt is full of
 *   them), in the robots cache.
 * On PostgreSQL either write throws, the error leaves runLane, and `nor night` stops: every
 * source after it tonight is left without an outcome, and the same happens on every restart
 * (the answer is final in the journal, replayed, and written again: the night never ends).
 * On SQLite the same nights end with every outcome.
 *
 * Failed on main at 7aef13b with NOR_TEST_POSTGRES_URL set, before the fix (it passes now). The fix suggested then: the store
 * writes text through one helper that maps U+0000 to U+FFFD (as the HTML parser does), for
 * records (night-records.ts), robots_cache.body / reason, and any other text a site supplies
 * (a robots.txt read with NUL would then parse the same way: NUL is never part of a token).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { writeCatalog } from "../night/cli-night.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const NIGHT = "2026-11-05";

const feed = (origin: string, title: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>${origin}/</link><description>d</description><item><title>${title}</title><link>${origin}/a/1</link><guid>${origin}/a/1</guid><pubDate>Tue, 03 Nov 2026 18:00:00 GMT</pubDate></item></channel></rss>`;

describe.skipIf(!postgresUrl)("review 8: a site's NUL bytes on PostgreSQL", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let fleet: Fleet;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet({ now: () => Date.now() });
    dir = mkdtempSync(join(tmpdir(), "nor-rev8b-nul-"));
  });
  afterAll(async () => {
    await fleet?.close();
    await factory.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  async function night(sources: string[][], data: string) {
    const loc = await factory.fresh();
    if (loc.kind !== "postgres") throw new Error("expected PostgreSQL");
    const catalog = writeCatalog(data, sources);
    const args = ["night", "--catalog", catalog, "--data", data, "--night", NIGHT];
    args.push("--allow-private-addresses", "--gap-ms", "50", "--concurrency", "1");
    const env = { NOR_DATABASE_URL: loc.url };
    // One run in this process: a second run of the same night here would wait for the first
    // run's lane lease, whose holder this process made (holder.ts `mine`), for hours.
    const first = await runMain(args, { env });
    const store = await openStore(loc);
    try {
      const rows = await store.db
        .selectFrom("night_sources")
        .select(["source_id", "outcome"])
        .where("night", "=", NIGHT)
        .orderBy("source_id")
        .execute();
      return { code: first.code, stderr: first.stderr, rows };
    } finally {
      await store.close();
    }
  }

  it("P8, P13: a feed title holding U+0000 does not stop the night; every source gets its outcome", async () => {
    const a = await fleet.server();
    const b = await fleet.server();
    a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    b.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    a.route("/feed.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(feed(a.origin, "Agenda\u0000 of the council"));
    });
    b.route("/feed.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(feed(b.origin, "Minutes"));
    });
    const data = mkdtempSync(join(dir, "titles-"));
    const r = await night(
      [
        [
          "id: a-feed",
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${a.url("/feed.xml")}`,
        ],
        [
          "id: b-feed",
          "government: village-of-test",
          "records: minutes",
          "access: feed",
          `url: ${b.url("/feed.xml")}`,
        ],
      ],
      data,
    );
    expect({ code: r.code, rows: r.rows, asked: a.hits("/feed.xml").length }).toEqual({
      code: 0,
      rows: [
        { source_id: "a-feed", outcome: "ok" },
        { source_id: "b-feed", outcome: "ok" },
      ],
      asked: 1,
    });
  }, 60_000);

  it("P16, P13: a robots.txt holding NUL bytes (UTF-16) does not stop the night", async () => {
    const a = await fleet.server();
    a.route("/robots.txt", (_q, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      // "User-agent: *\nAllow: /\n" in UTF-16LE, with its byte-order mark.
      res.end(
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from("User-agent: *\nAllow: /\n", "utf16le"),
        ]),
      );
    });
    a.route("/feed.xml", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" });
      res.end(feed(a.origin, "Agenda"));
    });
    const data = mkdtempSync(join(dir, "robots-"));
    const r = await night(
      [
        [
          "id: a-feed",
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${a.url("/feed.xml")}`,
        ],
      ],
      data,
    );
    expect({
      code: r.code,
      sources: r.rows.length,
      robots: a.hits("/robots.txt").length,
    }).toEqual({
      code: 0,
      sources: 1,
      robots: 1,
    });
  }, 60_000);
});
