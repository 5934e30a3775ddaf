import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WARCParser } from "warcio";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

async function responseRecords(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of listWarcFiles(dir)) {
    for await (const r of WARCParser.iterRecords(createReadStream(join(dir, f)))) {
      await r.readFully(false);
      if (r.warcType === "response" || r.warcType === "revisit")
        out.push(`${r.warcTargetURI} ${r.warcDate}`);
    }
  }
  return out.sort();
}

describe("a fleet night: the archive and the request log agree", () => {
  let fleet: Fleet;
  let dir: string;
  let catalog: string;
  const sites: FleetServer[] = [];

  beforeAll(async () => {
    fleet = await startFleet();
    for (const host of ["127.0.0.8", "127.0.0.9", "127.0.0.10"]) {
      const s = await fleet.server({ host });
      s.route(
        "/robots.txt",
        (_q, res) => void res.writeHead(200).end("User-agent: *\nDisallow: /private\n"),
      );
      s.route("/feed.rss", (req, res) => {
        if (req.headers["if-none-match"] === '"f1"')
          return void res.writeHead(304, { etag: '"f1"' }).end();
        res
          .writeHead(200, { "content-type": "application/rss+xml", etag: '"f1"' })
          .end(rss(s.origin, 3));
      });
      s.route("/moved.rss", (_q, res) => void res.writeHead(301, { location: "/feed2.rss" }).end());
      s.route(
        "/feed2.rss",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(s.origin, 2, "bid")),
      );
      s.route(
        "/gone.rss",
        (_q, res) =>
          void res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not here</h1>"),
      );
      sites.push(s);
    }
    dir = mkdtempSync(join(tmpdir(), "nor-agree-"));
    const sources: string[][] = [];
    sites.forEach((s, i) => {
      for (const path of ["/feed.rss", "/moved.rss", "/gone.rss", "/private/feed.rss"]) {
        sources.push([
          `id: s${i}${path.replace(/[^a-z0-9]/g, "-")}`,
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${s.url(path)}`,
        ]);
      }
    });
    catalog = writeCatalog(dir, sources);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8, P27: after two nights, every logged answer with a body has exactly one response or revisit record, and nothing else is archived", async () => {
    expect((await nightCli(catalog, dir, "2026-11-05")).code).toBe(0);
    expect((await nightCli(catalog, dir, "2026-11-06")).code).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    const rows = db
      .prepare("select url, started_at, status from request_log order by id")
      .all() as { url: string; started_at: string; status: number | null }[];
    db.close();
    const withBody = rows
      .filter((r) => r.status !== null && ((r.status >= 200 && r.status < 300) || r.status >= 400))
      .map((r) => `${r.url} ${r.started_at}`)
      .sort();
    const records = await responseRecords(join(dir, "archive"));
    expect(records).toEqual(withBody);
    // What the servers saw is exactly what the log holds: nothing sent off the books.
    expect(sites.reduce((n, s) => n + s.requests.length, 0)).toBe(rows.length);
    // The disallowed source was never asked for, on either night (P18).
    expect(sites.flatMap((s) => s.hits("/private/feed.rss"))).toEqual([]);
    // Night 2: the feed answered 304 (no record), the rest were read again.
    expect(rows.filter((r) => r.status === 304)).toHaveLength(3);
  }, 120_000);
});
