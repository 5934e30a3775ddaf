import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, nightProcess, rss, writeCatalog } from "../night/cli-night.js";
import { nor } from "./cli-capture.js";

/**
 * A WARC file truly lost (docs/operations.md "Backups"): the index still names the copies it
 * held, so `nor archive verify` said it `MISSING` (exit 1) for good. `nor archive forget FILE`
 * removes the index's rows for it (and the revisits in other files whose payload it held), in
 * one transaction, only for a file the index names that is not in the archive; verify then
 * passes, and the next night asks its pages in full (P8, P12).
 */
describe("nor archive forget", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;
  let archive: string;
  let first: string;
  let second: string;

  const count = (sql: string, ...args: unknown[]): number => {
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      return (db.prepare(sql).get(...args) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const rows = () => count("select count(*) as n from captures");
  const warcs = () => readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));

  beforeAll(async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-archive-forget-"));
    archive = join(dir, "archive");
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    // An ETag, and the page sent whole whatever is sent back (as many sites do): the second
    // night's answer, the same, is stored as a revisit of the first file's response.
    site.route(
      "/feed.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml", etag: '"v1"' })
          .end(rss(site.origin, 2)),
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
    const one = await nightCli(catalog, dir, "2026-11-05");
    expect(one.code, one.stderr).toBe(0);
    first = warcs()[0] as string;
    const two = await nightCli(catalog, dir, "2026-11-06");
    expect(two.code, two.stderr).toBe(0);
    second = warcs().find((n) => n !== first) as string;
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(
      count("select count(*) as n from captures where file = ? and refers_file = ?", second, first),
    ).toBeGreaterThan(0);
    // The first file truly lost.
    rmSync(join(archive, first));
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: before, nor archive verify says the lost file MISSING (exit 1)", async () => {
    const v = await nor("archive", "verify", "--data", dir);
    expect(v.code, v.stdout).toBe(1);
    expect(v.stdout).toContain(`MISSING ${first}:`);
  });

  it("P8: nor archive forget refuses (exit 2, nothing changed) no file, a file in the archive, a file the index does not name, a path outside the archive, no archive directory", async () => {
    const before = rows();
    const none = await nor("archive", "forget", "--data", dir);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain("name the lost file(s)");
    const there = await nor("archive", "forget", first, second, "--data", dir);
    expect(there.code, there.stderr).toBe(2);
    expect(there.stderr).toContain(`${second} is in the archive at ${archive}`);
    const typo = await nor("archive", "forget", first, "nor-typo.warc.gz", "--data", dir);
    expect(typo.code, typo.stderr).toBe(2);
    expect(typo.stderr).toContain("the index names no file nor-typo.warc.gz");
    for (const bad of [`../archive/${first}`, join(tmpdir(), first), `../${first}`, ".."]) {
      const r = await nor("archive", "forget", bad, "--data", dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`"${bad}"`);
      expect(r.stderr).toContain("not a file name in the archive");
    }
    // No archive directory (a mistyped --data, the archive moved): nothing to tell lost from.
    renameSync(archive, `${archive}-moved`);
    try {
      const gone = await nor("archive", "forget", first, "--data", dir);
      expect(gone.code, gone.stderr).toBe(2);
      expect(gone.stderr).toContain(`no archive at ${archive}`);
    } finally {
      renameSync(`${archive}-moved`, archive);
    }
    expect(rows()).toBe(before);
    expect(existsSync(join(archive, first))).toBe(false);
  });

  it("P8: nor archive forget FILE forgets the lost file's copies and the revisits of them, says so, and verify then passes (exit 0); the next night asks the page in full", async () => {
    const copies = count("select count(*) as n from captures where file = ?", first);
    const revisits = count(
      "select count(*) as n from captures where refers_file = ? and file <> ?",
      first,
      first,
    );
    expect(copies).toBeGreaterThan(0);
    const f = await nor("archive", "forget", first, "--data", dir);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toContain(
      `forgot ${first}: ${copies} stored ${copies === 1 ? "copy" : "copies"}`,
    );
    expect(f.stdout).toContain(
      `${revisits} ${revisits === 1 ? "revisit" : "revisits"} in other files that referred to its payloads`,
    );
    expect(f.stdout).toContain("asked again at the next night, in full");
    expect(count("select count(*) as n from captures where file = ?", first)).toBe(0);
    expect(count("select count(*) as n from captures where refers_file = ?", first)).toBe(0);
    // Said again: the index no longer names it (a typo's refusal), nothing changed.
    const again = await nor("archive", "forget", first, "--data", dir);
    expect(again.code).toBe(2);
    const v = await nor("archive", "verify", "--data", dir);
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).not.toContain("MISSING");
    // The revisit's record is still in the second file, its row gone: said, no failure.
    expect(v.stdout).toContain(`NOTE ${second} offset`);
    expect(v.stdout).toContain("a revisit the index does not name refers to");
    const before = site.requests.length;
    const three = await nightCli(catalog, dir, "2026-11-07");
    expect(three.code, three.stderr).toBe(0);
    const asked = site.requests.slice(before).filter((q) => q.path === "/feed.xml");
    expect(asked.length).toBe(1);
    expect(asked[0]?.headers["if-none-match"]).toBeUndefined();
    expect(asked[0]?.headers["if-modified-since"]).toBeUndefined();
    const after = await nor("archive", "verify", "--data", dir);
    expect(after.code, after.stdout).toBe(0);
  }, 60_000);

  it("P8: nor help archive lists forget", async () => {
    const h = await nor("help", "archive");
    expect(h.stdout + h.stderr).toContain("forget");
  });
});

/**
 * The whole archive lost (`mkdir DATA/archive`, the documented recovery), its files forgotten
 * while a night runs in another process: the forget takes the store's write lock as the night's
 * writes do; the night's answer, held until the forget is done, is stored in full in a file of
 * its own (never a revisit of a forgotten copy), and verify then passes.
 */
describe("nor archive forget beside a running night", () => {
  let fleet: Fleet;
  let dir: string;

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: every lost file forgotten in one command while a night runs; the night stores the page in full, and verify then passes (exit 0)", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-archive-forget-night-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    let hold: Promise<void> | undefined;
    let asked: (() => void) | undefined;
    const arrived = new Promise<void>((r) => {
      asked = r;
    });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route("/feed.xml", async (_q, res) => {
      if (hold !== undefined) {
        asked?.();
        await hold;
      }
      res
        .writeHead(200, { "content-type": "application/rss+xml", etag: '"v1"' })
        .end(rss(site.origin, 2));
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
    for (const night of ["2026-11-05", "2026-11-06"]) {
      const r = await nightCli(catalog, dir, night);
      expect(r.code, r.stderr).toBe(0);
    }
    const lost = readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));
    expect(lost.length).toBe(2);
    rmSync(archive, { recursive: true });
    mkdirSync(archive);
    let release: (() => void) | undefined;
    hold = new Promise<void>((r) => {
      release = r;
    });
    const running = nightProcess(catalog, dir, "2026-11-07");
    try {
      await arrived;
      // A bare name as verify says it, or a path to the file in the archive directory.
      const f = await nor(
        "archive",
        "forget",
        lost[0] as string,
        join(archive, lost[1] as string),
        "--data",
        dir,
      );
      expect(f.code, f.stderr).toBe(0);
      for (const file of lost) expect(f.stdout).toContain(`forgot ${file}: `);
    } finally {
      release?.();
    }
    const night = await running;
    expect(night.code, night.stderr).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const rows = db.prepare("select file, record_type from captures").all() as {
        file: string;
        record_type: string;
      }[];
      expect(rows.filter((r) => lost.includes(r.file))).toEqual([]);
      expect(rows.map((r) => r.record_type)).toContain("response");
      expect(rows.map((r) => r.record_type)).not.toContain("revisit");
    } finally {
      db.close();
    }
    const v = await nor("archive", "verify", "--data", dir);
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).not.toContain("MISSING");
  }, 90_000);
});
