import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "./cli-night.js";

/**
 * A 304 is counted from the page's last full read (`page_reads`) only while the store still
 * holds every record that read produced (P8, P12). Records gone since, however they went (no
 * command of ours deletes one: by hand, or a `records` table put back from an older backup),
 * come back from the stored copy, extracted in full, with nothing asked of the site again but
 * the conditional request. Real CLI, loopback server.
 */
const page = (origin: string, version: number) =>
  `<html><body><ul>${[1, 2]
    .map(
      (i) =>
        `<li class="bid"><a href="${origin}/bid/${version}-${i}">Bid ${version}-${i}</a> <span>11/0${i}/2026</span></li>`,
    )
    .join("")}</ul></body></html>`;

/** `/list`: version `v` of the page, its ETag `"v<v>"`, a 304 to the current one. */
function serve(site: FleetServer): { set(v: number): void } {
  let v = 1;
  site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
  site.route("/list", (req, res) => {
    const etag = `"v${v}"`;
    if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
    res.writeHead(200, { "content-type": "text/html", etag }).end(page(site.origin, v));
  });
  return {
    set: (n) => {
      v = n;
    },
  };
}

function sql<T>(file: string, q: string, ...args: unknown[]): T[] {
  const db = new Database(file);
  try {
    const st = db.prepare(q);
    if (st.reader) return st.all(...args) as T[];
    st.run(...args);
    return [];
  } finally {
    db.close();
  }
}

const entry = (url: string, id = "bids") => [
  `id: ${id}`,
  "government: village-of-test",
  "records: bids",
  "access: page",
  `url: ${url}`,
  "extract: { items: li.bid, title: a, link: a, date: span }",
  "backfill: { pagesPerNight: 0 }",
];

describe("a counted 304 and the records its read produced (P8, P12)", () => {
  let fleet: Fleet;
  const dirs: string[] = [];
  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Night 1 reads version 1, night 2 version 2: the store holds 4 records, the page shows 2. */
  async function twoVersions(host: string) {
    const site = await fleet.server({ host });
    const ctl = serve(site);
    const dir = mkdtempSync(join(tmpdir(), "nor-page-read-"));
    dirs.push(dir);
    const catalog = writeCatalog(dir, [entry(site.url("/list"))]);
    const db = join(dir, "nor.db");
    const night = async (n: string) => {
      const r = await nightCli(catalog, dir, n);
      expect(r.code, r.stderr).toBe(0);
    };
    await night("2026-11-05");
    // A backup of the store as it stood after the first night (SQLite's online backup).
    const backup = join(dir, "backup.db");
    const src = new Database(db);
    await src.backup(backup);
    src.close();
    ctl.set(2);
    await night("2026-11-06");
    const ids = () =>
      sql<{ record_id: string }>(db, "select record_id from records order by record_id").map((r) =>
        r.record_id.replace(site.origin, ""),
      );
    expect(ids()).toEqual(["/bid/1-1", "/bid/1-2", "/bid/2-1", "/bid/2-2"]);
    const asked = () => site.requests.filter((q) => q.path === "/list").length;
    expect(asked()).toBe(2);
    const since = (n: number) =>
      site.requests
        .filter((q) => q.path === "/list")
        .slice(n)
        .map((q) => q.headers["if-none-match"]);
    const outcome = (n: string) =>
      sql<{ outcome: string; records_found: number; new_records: number }>(
        db,
        "select outcome, records_found, new_records from night_sources where night = ?",
        n,
      )[0];
    return { site, dir, db, backup, night, ids, asked, since, outcome };
  }

  it("P8, P12: an ordinary 304 of the page last read in full is counted: the conditional request only, the records found, none new", async () => {
    const t = await twoVersions("127.0.0.2");
    await t.night("2026-11-07");
    expect(t.since(2)).toEqual(['"v2"']);
    expect(t.outcome("2026-11-07")).toEqual({
      outcome: "unchanged",
      records_found: 2,
      new_records: 0,
    });
    expect(t.ids()).toHaveLength(4);
  }, 120_000);

  it("P8, P12: a record of the page's last full read deleted by hand comes back the next night from the stored copy; the site sees only the conditional request", async () => {
    const t = await twoVersions("127.0.0.3");
    // The store still holds more records than the page lists (3 >= 2): only one of the read's is gone.
    sql(t.db, "delete from records where record_id = ?", `${t.site.origin}/bid/2-1`);
    await t.night("2026-11-07");
    expect(t.since(2)).toEqual(['"v2"']);
    expect(t.ids()).toEqual(["/bid/1-1", "/bid/1-2", "/bid/2-1", "/bid/2-2"]);
    // Put back from a 304's copy, it was there: already listed, not new on record (docs/catalog.md
    // "New on record, and already listed").
    expect(t.outcome("2026-11-07")).toEqual({
      outcome: "unchanged",
      records_found: 2,
      new_records: 0,
    });
    // With every record back, the night after counts the 304 again.
    await t.night("2026-11-08");
    expect(t.since(2)).toEqual(['"v2"', '"v2"']);
    expect(t.outcome("2026-11-08")).toEqual({
      outcome: "unchanged",
      records_found: 2,
      new_records: 0,
    });
  }, 120_000);

  it("P8, P12: records put back from a backup older than the page's last full read: the read's records come back the next night, the site sees only the conditional request", async () => {
    const t = await twoVersions("127.0.0.4");
    // The records table restored from the first night's backup; page_reads is newer.
    const db = new Database(t.db);
    try {
      db.prepare("attach database ? as old").run(t.backup);
      // Its columns named: the instant beside each date is the store's to work out (migration 018).
      const cols = "source_id, record_id, title, date, url, kind, first_seen_night, first_seen_at";
      db.exec(
        `delete from records; insert into records (${cols}) select ${cols} from old.records;`,
      );
    } finally {
      db.close();
    }
    expect(t.ids()).toEqual(["/bid/1-1", "/bid/1-2"]);
    await t.night("2026-11-07");
    expect(t.since(2)).toEqual(['"v2"']);
    expect(t.ids()).toEqual(["/bid/1-1", "/bid/1-2", "/bid/2-1", "/bid/2-2"]);
    // Put back from a 304's copy: already listed, not new on record.
    expect(t.outcome("2026-11-07")).toEqual({
      outcome: "unchanged",
      records_found: 2,
      new_records: 0,
    });
  }, 120_000);

  it("P8, P12: a source retired by a catalog import and restored keeps its records (no command deletes one): its next 304 is counted, the site asked only the conditional request", async () => {
    const site = await fleet.server({ host: "127.0.0.5" });
    serve(site);
    const dir = mkdtempSync(join(tmpdir(), "nor-page-read-"));
    dirs.push(dir);
    const both = writeCatalog(dir, [entry(site.url("/list")), entry(site.url("/other"), "other")]);
    site.route("/other", (_q, res) => void res.writeHead(404).end());
    mkdirSync(join(dir, "without"));
    const without = writeCatalog(join(dir, "without"), [entry(site.url("/other"), "other")]);
    const db = join(dir, "nor.db");
    const night = async (n: string) => {
      const r = await nightCli(both, dir, n);
      expect(r.code, r.stderr).toBe(0);
    };
    await night("2026-11-05");
    const retire = await runMain(["catalog", "import", without, "--data", dir, "--allow-retire"]);
    expect(retire.code, retire.stderr).toBe(0);
    expect(
      sql<{ retired: number }>(
        db,
        "select count(*) as retired from sources where retired_at is not null",
      ),
    ).toEqual([{ retired: 1 }]);
    const restore = await runMain(["catalog", "import", both, "--data", dir]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(
      sql<{ n: number }>(db, "select count(*) as n from records where source_id = 'bids'"),
    ).toEqual([{ n: 2 }]);
    await night("2026-11-06");
    const list = site.requests.filter((q) => q.path === "/list");
    expect(list.map((q) => q.headers["if-none-match"])).toEqual([undefined, '"v1"']);
    expect(
      sql(
        db,
        "select outcome, records_found, new_records from night_sources where night = ? and source_id = 'bids'",
        "2026-11-06",
      ),
    ).toEqual([{ outcome: "unchanged", records_found: 2, new_records: 0 }]);
  }, 120_000);
});
