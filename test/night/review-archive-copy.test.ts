import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "./cli-night.js";

/**
 * Review of the 304 path that answers from the private copy (P8, P12) and of backfill after a
 * crash between the archive write and the night's commit (P7, P8). Real CLI, loopback fleet.
 */
const LM = "Wed, 04 Nov 2026 12:00:00 GMT";

const listPage = (origin: string, n: number, last: number) =>
  `<html><body><ul>${[1, 2]
    .map(
      (i) =>
        `<li class="bid"><a href="${origin}/bid/${n}-${i}">Bid ${n}-${i}</a> <span>11/0${i}/2026</span></li>`,
    )
    .join(
      "",
    )}</ul>${n < last ? `<a class="next" href="${origin}/list/${n + 1}">Older</a>` : ""}</body></html>`;

/** A page answering 304 to the Last-Modified it gives out; `/list/N` with N in 1..last. */
function serveList(site: FleetServer, last: number): void {
  site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
  for (let n = 1; n <= last; n++) {
    site.route(`/list/${n}`, (req, res) => {
      if (req.headers["if-modified-since"] === LM) return void res.writeHead(304).end();
      res
        .writeHead(200, { "content-type": "text/html", "last-modified": LM })
        .end(listPage(site.origin, n, last));
    });
  }
}

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

const source = (id: string, url: string, perNight: number) => [
  `id: ${id}`,
  "government: village-of-test",
  "records: bids",
  "access: page",
  `url: ${url}`,
  "extract: { items: li.bid, title: a, link: a, date: span, next: a.next }",
  `backfill: { pagesPerNight: ${perNight} }`,
];

describe("review: the stored copy behind a 304", () => {
  let fleet: Fleet;
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "nor-review-copy-"));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const damage of ["deleted", "corrupted"] as const) {
    it(`P8, P12: a 304 whose stored copy was ${damage} does not stop the night; the page is read again in full and its records kept`, async () => {
      const site = await fleet.server({ host: "127.0.0.2" });
      serveList(site, 1);
      const other = await fleet.server({ host: "127.0.0.3" });
      serveList(other, 1);
      const dir = tmp();
      const catalog = writeCatalog(dir, [
        source("bids", site.url("/list/1"), 0),
        source("other", other.url("/list/1"), 0),
      ]);
      const r1 = await nightCli(catalog, dir, "2026-11-05");
      expect(r1.code, r1.stderr).toBe(0);
      const arch = join(dir, "archive");
      for (const f of readdirSync(arch)) {
        if (damage === "deleted") unlinkSync(join(arch, f));
        else {
          // Same size, garbage bytes: the index still names records there.
          const size = (await import("node:fs")).statSync(join(arch, f)).size;
          writeFileSync(join(arch, f), Buffer.alloc(size, 0x55));
        }
      }
      sql(dir, "delete from records");
      const r2 = await nightCli(catalog, dir, "2026-11-06");
      expect(r2.code, r2.stderr).toBe(0);
      const rows = sql<{ source_id: string; outcome: string }>(
        dir,
        "select source_id, outcome from night_sources where night = ? order by source_id",
        "2026-11-06",
      );
      expect(rows.map((r) => r.source_id)).toEqual(["bids", "other"]);
      for (const r of rows) expect(["ok", "unchanged"]).toContain(r.outcome);
      // The copy was lost, so asking once more in full is not asking for what we have (P8). A
      // file gone is known before asking: no validators are sent for a copy not held, and the
      // page is asked once; one there but unreadable is found only behind the 304.
      const paths = site.requests.slice(2).map((q) => [q.path, q.headers["if-modified-since"]]);
      expect(paths).toEqual(
        damage === "deleted"
          ? [["/list/1", undefined]]
          : [
              ["/list/1", LM],
              ["/list/1", undefined],
            ],
      );
      const asked = site.requests.length;
      const n = sql<{ n: number }>(dir, "select count(*) as n from records where source_id='bids'");
      expect(n[0]?.n).toBe(2);
      // The full answer was stored as a copy that reads back (not a revisit of the lost one):
      // the night after costs one 304 again, answered from it.
      sql(dir, "delete from records");
      const r3 = await nightCli(catalog, dir, "2026-11-07");
      expect(r3.code, r3.stderr).toBe(0);
      expect(
        site.requests.slice(asked).map((q) => [q.path, q.headers["if-modified-since"]]),
      ).toEqual([["/list/1", LM]]);
      const n3 = sql<{ n: number }>(
        dir,
        "select count(*) as n from records where source_id='bids'",
      );
      expect(n3[0]?.n).toBe(2);
    }, 120_000);
  }

  it("P12, P8: a 304 of the page last read in full is counted from the archive's index, its copy not read back; when its records are to be read, the copy is read back and a damaged one asked again in full", async () => {
    const site = await fleet.server({ host: "127.0.0.4" });
    serveList(site, 1);
    const dir = tmp();
    const catalog = writeCatalog(dir, [source("bids", site.url("/list/1"), 0)]);
    const r1 = await nightCli(catalog, dir, "2026-11-05");
    expect(r1.code, r1.stderr).toBe(0);
    // The copy's bytes damaged in place (same size): only reading it back would tell.
    const arch = join(dir, "archive");
    for (const f of readdirSync(arch)) {
      const size = (await import("node:fs")).statSync(join(arch, f)).size;
      writeFileSync(join(arch, f), Buffer.alloc(size, 0x55));
    }
    const asked = () => site.requests.map((q) => [q.path, q.headers["if-modified-since"]]);
    const before = site.requests.length;
    const r2 = await nightCli(catalog, dir, "2026-11-06");
    expect(r2.code, r2.stderr).toBe(0);
    // The conditional request only; its records counted from the last full read.
    expect(asked().slice(before)).toEqual([["/list/1", LM]]);
    expect(
      sql(dir, "select outcome, records_found from night_sources where night = '2026-11-06'"),
    ).toEqual([{ outcome: "unchanged", records_found: 2 }]);
    // A record removed: the copy is to be read, is found damaged, and the page asked in full.
    sql(dir, "delete from records where record_id = (select min(record_id) from records)");
    const at = site.requests.length;
    const r3 = await nightCli(catalog, dir, "2026-11-07");
    expect(r3.code, r3.stderr).toBe(0);
    expect(asked().slice(at)).toEqual([
      ["/list/1", LM],
      ["/list/1", undefined],
    ]);
    expect(sql<{ n: number }>(dir, "select count(*) as n from records")[0]?.n).toBe(2);
  }, 120_000);

  it("P7, P8: a night killed after archiving page 1 and its backfill pages but before the commit resumes the backfill from the copies, asking no page again", async () => {
    const site = await fleet.server({ host: "127.0.0.4" });
    serveList(site, 6);
    const dir = tmp();
    const catalog = writeCatalog(dir, [source("deep", site.url("/list/1"), 3)]);
    const NIGHT = "2026-11-05";
    const r1 = await nightCli(catalog, dir, NIGHT);
    expect(r1.code, r1.stderr).toBe(0);
    expect(site.requests.map((q) => q.path)).toEqual([
      "/robots.txt",
      "/list/1",
      "/list/2",
      "/list/3",
      "/list/4",
    ]);
    // As if the process had died after the archive writes, before the source's commit.
    sql(dir, "delete from night_sources where night = ?", NIGHT);
    sql(dir, "delete from backfill");
    sql(dir, "delete from records");
    const r2 = await nightCli(catalog, dir, NIGHT);
    expect(r2.code, r2.stderr).toBe(0);
    const again = site.requests.slice(5).map((q) => [q.path, q.headers["if-modified-since"]]);
    // Page 1 and pages 2–4 were all answered and stored tonight: none is asked again.
    expect(again).toEqual([]);
    const n = sql<{ n: number }>(dir, "select count(*) as n from records");
    expect(n[0]?.n).toBe(8);
    const bf = sql<{ pages_read: number; done: number; cursor: string | null }>(
      dir,
      "select pages_read, done, cursor from backfill",
    );
    expect(bf).toEqual([{ pages_read: 3, done: 0, cursor: expect.stringContaining("/list/5") }]);
    // The next night goes on where the backfill stood: pages 5 and 6, then the end.
    const r3 = await nightCli(catalog, dir, "2026-11-06");
    expect(r3.code, r3.stderr).toBe(0);
    expect(site.requests.slice(5).map((q) => q.path)).toEqual(["/list/1", "/list/5", "/list/6"]);
  }, 120_000);
});
