import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { nightCli, nightProcess, rss, writeCatalog } from "../night/cli-night.js";

/**
 * rev3: a page's latest copy in a file truly lost and forgotten (`nor archive forget`), an older
 * copy of it still in another file. The records the lost copy brought are stored, and the site
 * still lists them: `nor reparse` must not read the older copy as the list as it stands now and
 * call them removed (before the forget it said the copy could not be re-read, none removed).
 */
describe("rev3: nor reparse after nor archive forget", () => {
  let fleet: Fleet;
  let dir: string;
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: after nor archive forget of the file holding a page's latest copy, nor reparse reads no older copy as the list: none of the records the lost copy brought is called removed", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-rev3-forget-reparse-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    let items = 2;
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/feed.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, items)),
    );
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
    const one = await nightCli(catalog, dir, "2026-11-05");
    expect(one.code, one.stderr).toBe(0);
    const first = warcs()[0] as string;
    items = 3;
    const two = await nightCli(catalog, dir, "2026-11-06");
    expect(two.code, two.stderr).toBe(0);
    const second = warcs().find((n) => n !== first) as string;
    expect(second).toBeDefined();

    rmSync(join(archive, second));
    const lost = await nor("reparse", "--data", dir, "--catalog", catalog);
    expect(lost.code, lost.stderr).toBe(1);
    expect(lost.stdout).toContain("none called removed");

    const f = await nor("archive", "forget", second, "--data", dir);
    expect(f.code, f.stderr).toBe(0);
    const r = await nor("reparse", "--data", dir, "--catalog", catalog);
    expect(r.stdout).not.toContain("Item agenda 3");
    expect(r.stdout).not.toMatch(/would remove [1-9]/);
    expect(r.stdout).toContain("none called removed");
    expect(r.stdout).toContain(`forgotten: ${site.url("/feed.xml")}: its latest copy`);
    expect(r.stdout).toContain(`was in ${second}, lost and forgotten`);
    expect(r.code, r.stderr).toBe(0);
    // A night stores a newer copy: read as the list again, nothing forgotten said.
    const three = await nightCli(catalog, dir, "2026-11-07");
    expect(three.code, three.stderr).toBe(0);
    const after = await nor("reparse", "--data", dir, "--catalog", catalog);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain(
      "agendas: 1 capture read, 3 records found now, 3 stored — would add 0, would remove 0, would change 0",
    );
    expect(after.stdout).not.toContain("forgotten");
  }, 60_000);
});

/**
 * rev3: what `nor archive forget` says of the next night is so. A page whose latest copy is
 * forgotten but an older copy of which is still stored is asked with the older copy's validators
 * (P12: the latest copy the index names holding a body), not in full as it said.
 */
describe("rev3: nor archive forget says how the next night asks", () => {
  let fleet: Fleet;
  let dir: string;
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P12: after nor archive forget of a page's latest copy, its older copy still stored, the forget says the next night asks with a stored copy's validators where one is left, as the night does", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-rev3-forget-asked-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    let items = 2;
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/feed.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml", etag: `"v${items}"` })
          .end(rss(site.origin, items)),
    );
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
    const before = site.requests.length;
    expect((await nightCli(catalog, dir, "2026-11-07")).code).toBe(0);
    const asked = site.requests.slice(before).filter((q) => q.path === "/feed.xml");
    expect(asked.length).toBe(1);
    // The older copy's validators are sent (P12), as the index now says its latest copy is.
    expect(asked[0]?.headers["if-none-match"]).toBe('"v2"');
    expect(f.stdout).not.toContain("asked in full at the next night");
    expect(f.stdout).toContain("with the validators of an older copy still stored");
  }, 60_000);
});

/**
 * rev3: a revisit whose row a night committed just after `nor archive forget` took its
 * original's file out of the index (the night looked that the file was there, the file went,
 * the forget ran, then the row came): the index names the lost file only as that revisit's
 * original. Verify says it (the revisit's copy cannot be read), and forget must take it out,
 * not refuse it as a file the index does not name.
 */
describe("rev3: nor archive forget of a file the index names only as a revisit's original", () => {
  let fleet: Fleet;
  let dir: string;
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: a lost file the index names only as the original of a revisit in another file is forgotten (that revisit's row goes), and verify then passes", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-rev3-forget-ref-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/feed.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml", etag: '"v1"' })
          .end(rss(site.origin, 2)),
    );
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
    expect((await nightCli(catalog, dir, "2026-11-06")).code).toBe(0);
    const db = new Database(join(dir, "nor.db"));
    try {
      const revisits = db
        .prepare("select count(*) as n from captures where refers_file = ? and file <> ?")
        .get(first, first) as { n: number };
      expect(revisits.n).toBeGreaterThan(0);
      // The first file lost and its own rows forgotten; the revisit's row committed after.
      rmSync(join(archive, first));
      db.prepare("delete from captures where file = ?").run(first);
    } finally {
      db.close();
    }
    const v = await nor("archive", "verify", "--data", dir);
    expect(v.code, v.stdout).toBe(1);
    // The lost file named, as the one to put back or forget.
    expect(v.stdout).toContain(`in ${first}, gone from the archive`);
    expect(v.stdout).toContain(`nor archive forget ${first}`);
    const f = await nor("archive", "forget", first, "--data", dir);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toContain(`forgot ${first}: 0 stored copies and 1 revisit in other files`);
    const after = await nor("archive", "verify", "--data", dir);
    expect(after.code, after.stdout).toBe(0);
  }, 60_000);
});

/**
 * rev3: the file a running night is writing, deleted under it: the night goes on writing into
 * it (its open handle) and indexing what it writes there. Forgotten now, the index names it
 * again as soon as the night stores its next answer, and verify says it MISSING after all: the
 * forget waits for the night (refused while a live process holds the file's `.writer` claim).
 */
describe("rev3: nor archive forget of the file a running night writes", () => {
  let fleet: Fleet;
  let dir: string;
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8: the file a running night is writing, deleted under it, is not forgotten while the night writes it (exit 2, nothing changed, the file named); once the night ends it is, and verify passes", async () => {
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-rev3-forget-writing-"));
    const archive = join(dir, "archive");
    const site = await fleet.server();
    let hold: Promise<void> | undefined;
    let asked: (() => void) | undefined;
    const arrived = new Promise<void>((r) => {
      asked = r;
    });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    // The night's second feed request is held: the first one's answer is stored by then.
    let feeds = 0;
    for (const path of ["/one.xml", "/two.xml"])
      site.route(path, async (_q, res) => {
        feeds++;
        if (feeds === 2 && hold !== undefined) {
          asked?.();
          await hold;
        }
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 2, path.slice(1, 4)));
      });
    const entry = (id: string, path: string) => [
      `id: ${id}`,
      "government: village-of-test",
      "records: agendas",
      "access: feed",
      `url: ${site.url(path)}`,
    ];
    const catalog = writeCatalog(dir, [entry("one", "/one.xml"), entry("two", "/two.xml")]);
    let release: (() => void) | undefined;
    hold = new Promise<void>((r) => {
      release = r;
    });
    const running = nightProcess(catalog, dir, "2026-11-05");
    let writing: string | undefined;
    try {
      await Promise.race([
        arrived,
        running.then((r) => {
          throw new Error(`the night ended before its second request: ${r.code} ${r.stderr}`);
        }),
      ]);
      writing = readdirSync(archive).find((n) => n.endsWith(".warc.gz"));
      expect(writing, "the night's file, with what it stored before this request").toBeDefined();
      rmSync(join(archive, writing as string));
      const rows = () => {
        const db = new Database(join(dir, "nor.db"), { readonly: true });
        try {
          return db.prepare("select count(*) as n from captures").get() as { n: number };
        } finally {
          db.close();
        }
      };
      const before = rows().n;
      const f = await nor("archive", "forget", writing as string, "--data", dir);
      expect(f.code, f.stdout).toBe(2);
      expect(f.stderr).toContain(`${writing} is being written by a running night`);
      expect(rows().n).toBe(before);
    } finally {
      release?.();
    }
    const night = await running;
    expect(night.code, night.stderr).toBe(0);
    const f = await nor("archive", "forget", writing as string, "--data", dir);
    expect(f.code, f.stderr).toBe(0);
    const v = await nor("archive", "verify", "--data", dir);
    expect(v.code, v.stdout).toBe(0);
  }, 90_000);
});
