import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";
import { nor } from "./cli-capture.js";

/**
 * A store put back without its archive (P8, docs/operations.md "Backups"): nor.db's index names
 * stored copies in DATA/archive, and there is no such directory. `nor night` and `nor start`
 * refuse to start (exit 2), naming the directory and the copies, and say what to do; they make
 * no empty archive and ask nothing (before, the night made one and asked every page again in
 * full, silently). Once the operator has made the empty directory, the night goes on and says
 * once that the archive is empty. `nor archive show` and `nor reparse` say it as `nor archive
 * verify` does: exit 2.
 */
describe("a store whose archive is missing", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;
  let archive: string;
  let copies: number;

  const count = (sql: string): number => {
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      return (db.prepare(sql).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-archive-lost-"));
    archive = join(dir, "archive");
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/feed.xml",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(site.origin, 2)),
    );
    catalog = writeCatalog(dir, [
      [
        "id: agendas",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/feed.xml")}`,
      ],
    ]);
    const first = await nightCli(catalog, dir, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    copies = count("select count(*) as n from captures");
    expect(copies).toBeGreaterThan(0);
    // Restored without it: the index names copies in a directory that is not there.
    renameSync(archive, join(dir, "archive-elsewhere"));
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const missing = () =>
    `no archive at ${archive}: the directory does not exist, though the index names ${copies} stored copies in it`;

  it("P8: nor night refuses to start (exit 2), naming the directory and the copies, saying to restore it or make it empty; nothing is asked or made", async () => {
    const before = site.requests.length;
    const r = await nightCli(catalog, dir, "2026-11-06");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(missing());
    expect(r.stderr).toContain("restore the archive there from its backup");
    expect(r.stderr).toContain(
      `if it is truly lost, create the empty directory (\`mkdir ${archive}\`) to go on, and every page is then asked again in full`,
    );
    expect(site.requests.length).toBe(before);
    expect(existsSync(archive)).toBe(false);
    expect(count("select count(*) as n from nights where night = '2026-11-06'")).toBe(0);
  }, 60_000);

  it("P8: nor start refuses to start as well (exit 2), before it serves, and makes no archive", async () => {
    const before = site.requests.length;
    const r = await nor(
      "start",
      "--data",
      dir,
      "--catalog",
      catalog,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--allow-private-addresses",
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(missing());
    expect(r.stdout).not.toContain("the directory is at");
    expect(site.requests.length).toBe(before);
    expect(existsSync(archive)).toBe(false);
  }, 60_000);

  it("P8: nor archive show and nor reparse say there is no archive as nor archive verify does (exit 2)", async () => {
    const show = await nor("archive", "show", site.url("/feed.xml"), "--data", dir);
    expect(show.code, show.stderr).toBe(2);
    expect(show.stderr).toContain(missing());
    const reparse = await nor("reparse", "--data", dir, "--catalog", catalog);
    expect(reparse.code, reparse.stderr).toBe(2);
    expect(reparse.stderr).toContain(missing());
    expect(reparse.stdout).toBe("");
    const verify = await nor("archive", "verify", "--data", dir);
    expect(verify.code, verify.stderr).toBe(2);
    expect(verify.stderr).toContain(missing());
  });

  it("P8: nor discover refuses as well (exit 2), asks nothing and makes no archive a night would then take for the store's", async () => {
    const before = site.requests.length;
    const r = await nor(
      "discover",
      site.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(missing());
    expect(site.requests.length).toBe(before);
    expect(existsSync(archive)).toBe(false);
  }, 60_000);

  it("P8: the empty directory made by the operator, the night goes on and warns once that the archive is empty", async () => {
    mkdirSync(archive);
    const before = site.requests.length;
    const r = await nightCli(catalog, dir, "2026-11-06");
    expect(r.code, r.stderr).toBe(0);
    const warning = `the archive at ${archive} is empty, though the index names ${copies} stored copies in it: every page they hold is asked again in full (P8)`;
    expect(r.stderr.split(warning).length - 1, r.stderr).toBe(1);
    expect(site.requests.slice(before).map((q) => q.path)).toContain("/feed.xml");
    // Its answers are kept again: the next night says nothing of an empty archive.
    const next = await nightCli(catalog, dir, "2026-11-07");
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain("is empty, though the index names");
  }, 60_000);
});
