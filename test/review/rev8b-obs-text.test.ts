/**
 * Review 8 (second pass): header values a site sends with bytes over 0x7F (RFC 9110 §5.5
 * obs-text, which undici accepts and hands over as Latin-1 characters) and which the checker
 * sends back as If-None-Match / If-Modified-Since (P12) (and as Cookie, P22, once a night
 * passes a cookie jar: none does today). identity.ts `safe()` allows only tab and 0x20-0x7E
 * and throws a TypeError for anything else. The throw happens above the site gate (no row,
 * nothing sent), goes up through `fetch` and out of runLane, and `nor night` stops: a feed
 * answered with `ETag: "café"` is read fine the first night; every later night stops at its
 * conditional request, and the sources after it are never checked (until the ETag changes).
 *
 * Failed on main (7aef13b): the second night exited 1 ("If-None-Match header value has
 * control characters"), both sources without an outcome. Fixed on this branch: `safe()` still
 * refuses what can smuggle a line (CR, LF, NUL and the other controls) but allows obs-text
 * (0x80-0xFF), which undici sends as the same Latin-1 bytes. (Not done: runLane could also turn
 * one source's unexpected error into that source's outcome instead of ending the night.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

describe("review 8: obs-text in a header the checker sends back (P12)", () => {
  let fleet: Fleet;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet({ now: () => Date.now() });
    dir = mkdtempSync(join(tmpdir(), "nor-rev8b-obs-"));
  });
  afterAll(async () => {
    await fleet?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const feed = (s: FleetServer, path: string, headers: Record<string, string>) =>
    s.route(path, (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml", ...headers });
      res.end(rss(s.origin, 2, path.slice(1, 3)));
    });

  async function outcomes(data: string, night: string) {
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const rows = await store.db
        .selectFrom("night_sources")
        .select(["source_id", "outcome"])
        .where("night", "=", night)
        .orderBy("source_id")
        .execute();
      return rows.map((r) => `${r.source_id}: ${r.outcome}`);
    } finally {
      await store.close();
    }
  }

  const source = (id: string, url: string) => [
    `id: ${id}`,
    "government: village-of-test",
    "records: agendas",
    "access: feed",
    `url: ${url}`,
  ];

  it("P12: a feed whose ETag holds 'é' is asked conditionally the next night, and that night ends", async () => {
    const a = await fleet.server();
    const b = await fleet.server();
    for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    // Node writes a header value's characters as Latin-1 bytes: 0xE9 here.
    feed(a, "/a.xml", { etag: '"café"' });
    feed(b, "/b.xml", {});
    const data = mkdtempSync(join(dir, "etag-"));
    const catalog = writeCatalog(data, [
      source("a-feed", a.url("/a.xml")),
      source("b-feed", b.url("/b.xml")),
    ]);
    const first = await nightCli(catalog, data, "2026-11-05");
    const second = await nightCli(catalog, data, "2026-11-06");
    expect({
      codes: [first.code, second.code],
      second: await outcomes(data, "2026-11-06"),
      // The second night sends the ETag back byte for byte (Node reads it as Latin-1 again).
      ifNoneMatch: a.hits("/a.xml").map((r) => r.headers["if-none-match"] ?? null),
    }).toEqual({
      codes: [0, 0],
      second: ["a-feed: ok", "b-feed: ok"],
      ifNoneMatch: [null, '"café"'],
    });
  }, 60_000);
});
