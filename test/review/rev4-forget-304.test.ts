import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

/**
 * Review of b08ef66 (nor reparse after nor archive forget). After the forget, the night asks the
 * page with the older copy's validators (P12); a site whose page is that copy again answers 304:
 * the older copy is the list as it stands, by the site's own word, and the night reads it so. No
 * newer 2xx copy is stored while the page stays so, and reparse said the page forgotten, its
 * older copy not read, every night after.
 */
describe("rev4: nor reparse after nor archive forget and a 304 of the older copy", () => {
  let fleet: Fleet;
  let dir: string;
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8, P12: after nor archive forget of a page's latest copy, a night answered 304 to the older copy's validators makes nor reparse read that copy as the list again, no longer said forgotten", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-rev4-forget-304-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    let items = 2;
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed.xml", (q, res) => {
      const etag = `"v${items}"`;
      if (q.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag })
        .end(rss(site.origin, items));
    });
    const catalog = writeCatalog(dir, [
      [
        "id: agendas",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/feed.xml")}`,
      ],
    ]);
    const warcs = () => readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));
    expect((await nightCli(catalog, dir, "2026-11-05")).code).toBe(0);
    const first = warcs()[0] as string;
    items = 3;
    expect((await nightCli(catalog, dir, "2026-11-06")).code).toBe(0);
    const second = warcs().find((n) => n !== first) as string;
    rmSync(join(archive, second));
    const f = await nor("archive", "forget", second, "--data", dir);
    expect(f.code, f.stderr).toBe(0);
    // The third agenda withdrawn: the feed is the first night's again, answered 304.
    items = 2;
    const before = site.requests.length;
    expect((await nightCli(catalog, dir, "2026-11-07")).code).toBe(0);
    const asked = site.requests.slice(before).filter((q) => q.path === "/feed.xml");
    expect(asked.map((q) => q.headers["if-none-match"])).toEqual(['"v2"']);
    const r = await nor("reparse", "--data", dir, "--catalog", catalog);
    expect(r.stdout).not.toContain("forgotten");
    expect(r.stdout).toContain("2 records found now, 3 stored");
  }, 60_000);
  it("P8, P12: a 304 to the lost copy's own validators, answered before nor archive forget, vouches for no older copy: nor reparse still says the page forgotten and calls none removed", async () => {
    const site = await fleet.server();
    const d = mkdtempSync(join(tmpdir(), "nor-rev4-forget-304b-"));
    const archive = join(d, "archive");
    let items = 2;
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed.xml", (q, res) => {
      const etag = `"v${items}"`;
      if (q.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag })
        .end(rss(site.origin, items));
    });
    const catalog = writeCatalog(d, [
      [
        "id: agendas",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/feed.xml")}`,
      ],
    ]);
    const warcs = () => readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));
    try {
      expect((await nightCli(catalog, d, "2026-11-05")).code).toBe(0);
      const first = warcs()[0] as string;
      items = 3;
      expect((await nightCli(catalog, d, "2026-11-06")).code).toBe(0);
      const second = warcs().find((n) => n !== first) as string;
      // Unchanged the next night: a 304 to the third agenda's copy (the one then lost).
      const before = site.requests.length;
      expect((await nightCli(catalog, d, "2026-11-07")).code).toBe(0);
      const asked = site.requests.slice(before).filter((q) => q.path === "/feed.xml");
      expect(asked.map((q) => q.headers["if-none-match"])).toEqual(['"v3"']);
      rmSync(join(archive, second));
      const f = await nor("archive", "forget", second, "--data", d);
      expect(f.code, f.stderr).toBe(0);
      const r = await nor("reparse", "--data", d, "--catalog", catalog);
      expect(r.stdout).toContain(`forgotten: ${site.url("/feed.xml")}: its latest copy`);
      expect(r.stdout).toContain("none called removed");
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }, 60_000);
});
