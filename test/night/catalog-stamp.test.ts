import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/**
 * docs/benchmarks.md "A night's memory": a night whose catalog files are, byte for byte and by name, the ones last imported
 * into its store (their stamp, src/sources/catalog/stamp.ts) runs the sources the store holds
 * without reading the files again. A wrong skip would run, and show, stale sources: every
 * other case reads and imports the files as before. To see which happened, the store's entry
 * of f2 is pointed at feed 3 behind the import's back: a night that skipped the files asks
 * feed 3, one that imported them puts f2 back on feed 2 and asks that.
 */
const feedSource = (site: FleetServer, n: number, id = `f${n}`) => [
  `id: ${id}`,
  "government: village-of-test",
  "records: agendas",
  "access: feed",
  `url: ${site.url(`/feed/${n}.xml`)}`,
];

function sql<T>(dir: string, q: string, ...args: unknown[]): T[] {
  const db = new Database(join(dir, "nor.db"));
  try {
    const st = db.prepare(q);
    if (st.reader) return st.all(...args) as T[];
    st.run(...args);
    return [];
  } finally {
    db.close();
  }
}

describe("a night of the catalog files last imported does not read them", () => {
  let fleet: Fleet;
  let site: FleetServer;
  const dirs: string[] = [];

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.7" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const n of [1, 2, 3, 4])
      site.route(
        `/feed/${n}.xml`,
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 2, `f${n}`)),
      );
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-catalog-stamp-"));
    dirs.push(dir);
    return dir;
  };
  /** f2's entry in the store, and only there, now names feed 3. */
  const tamper = (dir: string) => {
    const { entry } = sql<{ entry: string }>(dir, "select entry from sources where id = 'f2'")[0]!;
    const moved = entry.replace("/feed/2.xml", "/feed/3.xml");
    expect(moved).not.toBe(entry);
    sql(
      dir,
      "update sources set entry = ?, url = ? where id = 'f2'",
      moved,
      site.url("/feed/3.xml"),
    );
  };
  /** The feeds a night asked for, in order. */
  const night = async (catalog: string, dir: string, date: string, extra: string[] = []) => {
    const before = site.requests.length;
    const r = await nightCli(catalog, dir, date, extra);
    expect(r.code, r.stderr).toBe(0);
    return site.requests
      .slice(before)
      .map((q) => q.path)
      .filter((p) => p !== "/robots.txt")
      .sort();
  };
  /** A catalog of the fleet's feeds `ns` (f1, f2 unless told), written to `dir`. */
  const feeds = (dir: string, ns: readonly number[] = [1, 2]) =>
    writeCatalog(
      dir,
      ns.map((n) => feedSource(site, n)),
    );
  const stamp = (dir: string) =>
    sql<{ digest: string | null }>(dir, "select digest from catalog_stamp")[0]?.digest;
  const active = (dir: string) =>
    sql<{ id: string; url: string }>(
      dir,
      "select id, url from sources where retired_at is null order by id",
    ).map((r) => `${r.id} ${new URL(r.url).pathname}`);

  it("the same files again: the night runs the sources the store holds, the files unread", async () => {
    const dir = fresh();
    const catalog = feeds(dir);
    expect(await night(catalog, dir, "2026-11-05")).toEqual(["/feed/1.xml", "/feed/2.xml"]);
    const first = stamp(dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    tamper(dir);
    // Read from the store: f2 as the store has it (no file says feed 3).
    expect(await night(catalog, dir, "2026-11-06")).toEqual(["/feed/1.xml", "/feed/3.xml"]);
    expect(stamp(dir)).toBe(first);
  }, 120_000);

  it("a file edited by one byte (its times put back) is read and imported again", async () => {
    const dir = fresh();
    const catalog = feeds(dir);
    await night(catalog, dir, "2026-11-05");
    const first = stamp(dir);
    tamper(dir);
    const { atime, mtime } = statSync(catalog);
    const text = readFileSync(catalog, "utf8");
    const edited = text.replace("Village of Test", "Village of Tess");
    expect(edited.length).toBe(text.length);
    writeFileSync(catalog, edited);
    utimesSync(catalog, atime, mtime);
    expect(await night(catalog, dir, "2026-11-06")).toEqual(["/feed/1.xml", "/feed/2.xml"]);
    expect(sql(dir, "select name from governments")).toEqual([{ name: "Village of Tess" }]);
    expect(stamp(dir)).not.toBe(first);
    expect(active(dir)).toEqual(["f1 /feed/1.xml", "f2 /feed/2.xml"]);
  }, 120_000);

  it("another catalog imported in between: the night's own files are imported again", async () => {
    const dir = fresh();
    const a = feeds(dir);
    await night(a, dir, "2026-11-05");
    const other = mkdtempSync(join(dir, "b-"));
    const b = feeds(other, [3, 4]);
    const imported = await runMain(["catalog", "import", b, "--data", dir, "--allow-retire"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(active(dir)).toEqual(["f3 /feed/3.xml", "f4 /feed/4.xml"]);
    // The night's files: back in use, the other catalog's retired, each asked as its file says.
    const asked = await night(a, dir, "2026-11-06", ["--allow-retire"]);
    expect(asked).toEqual(["/feed/1.xml", "/feed/2.xml"]);
    expect(active(dir)).toEqual(["f1 /feed/1.xml", "f2 /feed/2.xml"]);
  }, 120_000);

  it("`nor catalog import` records the stamp a night of the same files recognises", async () => {
    const dir = fresh();
    const catalog = feeds(dir);
    const imported = await runMain(["catalog", "import", catalog, "--data", dir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(stamp(dir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    tamper(dir);
    expect(await night(catalog, dir, "2026-11-05")).toEqual(["/feed/1.xml", "/feed/3.xml"]);
  }, 120_000);

  it("the same bytes under another name, or the files in another order, are imported again", async () => {
    const dir = fresh();
    const catalog = feeds(dir);
    await night(catalog, dir, "2026-11-05");
    tamper(dir);
    const copy = join(dir, "copy.yaml");
    copyFileSync(catalog, copy);
    expect(await night(copy, dir, "2026-11-06")).toEqual(["/feed/1.xml", "/feed/2.xml"]);

    // Two files, then the same two the other way round.
    const govs = join(dir, "govs.yaml");
    const srcs = join(dir, "srcs.yaml");
    const text = readFileSync(catalog, "utf8");
    const cut = text.indexOf("sources:");
    writeFileSync(govs, text.slice(0, cut));
    writeFileSync(srcs, text.slice(cut));
    const both = await runMain(["catalog", "import", govs, srcs, "--data", dir]);
    expect(both.code, both.stderr).toBe(0);
    tamper(dir);
    const r = await runMain([
      "night",
      "--catalog",
      srcs,
      govs,
      "--data",
      dir,
      "--night",
      "2026-11-07",
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(active(dir)).toEqual(["f1 /feed/1.xml", "f2 /feed/2.xml"]);
  }, 120_000);

  it("a store without the stamp (from before its migration) reads and imports the files", async () => {
    const dir = fresh();
    const catalog = feeds(dir);
    await night(catalog, dir, "2026-11-05");
    tamper(dir);
    // As the store was before migration 015: no table, neither it nor any later migration run
    // (those after it only drop and create indexes, with `if exists` and `if not exists`).
    sql(dir, "drop table catalog_stamp");
    sql(dir, "delete from kysely_migration where name >= '015-catalog-stamp'");
    expect(await night(catalog, dir, "2026-11-06")).toEqual(["/feed/1.xml", "/feed/2.xml"]);
    expect(stamp(dir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // And a store whose last import recorded no stamp (a catalog imported from memory).
    tamper(dir);
    sql(dir, "update catalog_stamp set digest = null");
    expect(await night(catalog, dir, "2026-11-07")).toEqual(["/feed/1.xml", "/feed/2.xml"]);
  }, 120_000);

  it("a store put back from a copy holds the stamp of its own rows", async () => {
    const dir = fresh();
    const a = feeds(dir);
    await night(a, dir, "2026-11-05");
    const backup = join(dir, "backup.db");
    copyFileSync(join(dir, "nor.db"), backup);
    const other = mkdtempSync(join(dir, "b-"));
    const b = feeds(other, [3, 4]);
    expect((await runMain(["catalog", "import", b, "--data", dir, "--allow-retire"])).code).toBe(0);
    // The copy from before that import: its rows are those of the night's files again.
    copyFileSync(backup, join(dir, "nor.db"));
    for (const f of ["nor.db-wal", "nor.db-shm"]) rmSync(join(dir, f), { force: true });
    expect(active(dir)).toEqual(["f1 /feed/1.xml", "f2 /feed/2.xml"]);
    expect(await night(a, dir, "2026-11-06")).toEqual(["/feed/1.xml", "/feed/2.xml"]);
    // The other catalog's files are not the copy's: read and imported.
    expect(await night(b, dir, "2026-11-07", ["--allow-retire"])).toEqual([
      "/feed/3.xml",
      "/feed/4.xml",
    ]);
    expect(active(dir)).toEqual(["f3 /feed/3.xml", "f4 /feed/4.xml"]);
  }, 120_000);
});
