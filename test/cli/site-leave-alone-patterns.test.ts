import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";
import { nor } from "./cli-capture.js";

/**
 * A site owner writes the paths to leave alone as robots.txt writes them: `*` any run of
 * characters, a final `$` the end of the path. `nor site --leave-alone` takes them so, and
 * the next night asks nothing they match (read by robots.txt's own matcher), while a path they
 * do not match is still asked. Before, each was read as a plain prefix: a pattern with `*` or
 * a final `$` matched nothing, and the owner's pages were asked again.
 */
describe("nor site --leave-alone with robots.txt patterns", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  /** Each feed's path, and whether the owner's patterns below leave it alone. */
  const FEEDS: readonly [path: string, alone: boolean][] = [
    ["/permits/2026/feed", true],
    ["/permits/2025/residential/feed", true],
    ["/permits/list.xml", false],
    ["/x/feed.rss", true],
    ["/x/feed.rss?all=1", false],
  ];

  beforeAll(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-site-patterns-"));
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const [i, [path]] of FEEDS.entries()) {
      site.route(
        path,
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 1, `f${i}`)),
      );
    }
    catalog = writeCatalog(
      dir,
      FEEDS.map(([path], i) => [
        `id: f${i}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: "${site.url(path)}"`,
      ]),
    );
  });
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P26: a path pattern with * or a final $ leaves alone the paths it matches on the next night; a path it does not match is still asked", async () => {
    // The first night asks every feed.
    const first = await nightCli(catalog, dir, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    expect(new Set(site.requests.map((r) => r.path))).toEqual(
      new Set(["/robots.txt", ...FEEDS.map(([p]) => p)]),
    );

    // The owner's e-mail; the site is named by a URL of it, and said as the site (normalised).
    const set = await nor(
      "site",
      site.url("/permits/"),
      "--data",
      dir,
      "--leave-alone",
      "/permits/*/feed",
      "/x/feed.rss$",
      "--reason",
      "owner, e-mail of 2026-11-05",
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(
      `${site.host}: /permits/*/feed left alone\n${site.host}: /x/feed.rss$ left alone\n`,
    );
    const listed = await nor("site", site.host, "--data", dir);
    expect(listed.stdout).toContain(`${site.host}: /permits/*/feed left alone (since `);
    expect(listed.stdout).toContain(`${site.host}: /x/feed.rss$ left alone (since `);

    const before = site.requests.length;
    const second = await nightCli(catalog, dir, "2026-11-06");
    expect(second.code, second.stderr).toBe(0);
    const asked = site.requests.slice(before).map((r) => r.path);
    for (const [path, alone] of FEEDS) {
      if (alone) expect(asked, path).not.toContain(path);
      else expect(asked, path).toContain(path);
    }

    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare(
          "select source_id, outcome, reason from night_sources where night = '2026-11-06' order by source_id",
        )
        .all() as { source_id: string; outcome: string; reason: string | null }[];
      expect(rows.map((r) => [r.source_id, r.outcome])).toEqual(
        FEEDS.map(([, alone], i) => [`f${i}`, alone ? "left-alone" : "ok"]),
      );
      expect(rows[0]?.reason).toContain("for /permits/*/feed to be left alone");
      expect(rows[3]?.reason).toContain("for /x/feed.rss$ to be left alone");
    } finally {
      db.close();
    }
  }, 60_000);
});
