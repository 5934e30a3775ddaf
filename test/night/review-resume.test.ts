import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/** Review: resuming a night (P13) after its deadline, and with a catalog that changed. */
const feedSource = (site: FleetServer, n: number) => [
  `id: f${n}`,
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

describe("review: resuming a night", () => {
  let fleet: Fleet;
  let site: FleetServer;
  const dirs: string[] = [];

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.6" });
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

  it("P13: a night resumed after its deadline sends nothing; the sources left, asked and answered before the stop, are cut short and go first the next night", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-review-resume-"));
    dirs.push(dir);
    const catalog = writeCatalog(
      dir,
      [1, 2, 3].map((n) => feedSource(site, n)),
    );
    const before = site.requests.length;
    expect((await nightCli(catalog, dir, "2026-11-05")).code).toBe(0);
    // As if killed after f1 only, and restarted once the deadline had passed.
    sql(dir, "delete from night_sources where night = ? and source_id <> 'f1'", "2026-11-05");
    sql(dir, "update nights set deadline_at = ?, finished_at = null", "2000-01-01T00:00:00.000Z");
    const sent = site.requests.length;
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.length).toBe(sent);
    expect(
      sql<{ source_id: string; outcome: string }>(
        dir,
        "select source_id, outcome from night_sources where night = ? order by source_id",
        "2026-11-05",
      ),
    ).toEqual([
      { source_id: "f1", outcome: "ok" },
      { source_id: "f2", outcome: "cut-short" },
      { source_id: "f3", outcome: "cut-short" },
    ]);
    expect(
      sql<{ reason: string }>(
        dir,
        "select reason from night_sources where night = ? and source_id = 'f2'",
        "2026-11-05",
      )[0]?.reason,
    ).toBe(
      `its last request (${site.url("/feed/2.xml")}) answered HTTP 200 in full; the night's time limit came before the source was finished`,
    );
    expect(sent - before).toBe(4);
    // P13: the unreached go first the next night (one lane: f2, f3 before f1).
    expect((await nightCli(catalog, dir, "2026-11-06")).code).toBe(0);
    expect(site.requests.slice(sent).map((q) => q.path)).toEqual([
      "/feed/2.xml",
      "/feed/3.xml",
      "/feed/1.xml",
    ]);
  }, 120_000);

  it("P13: a night resumed with a source added checks only that one; a source removed is not asked and its records stay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-review-resume-"));
    dirs.push(dir);
    const catalog = writeCatalog(
      dir,
      [1, 2].map((n) => feedSource(site, n)),
    );
    expect((await nightCli(catalog, dir, "2026-11-05")).code).toBe(0);
    const sent = site.requests.length;
    writeCatalog(
      dir,
      [2, 4].map((n) => feedSource(site, n)),
    );
    // Half the sources retired at once: meant here, so said so (--allow-retire).
    const r = await nightCli(catalog, dir, "2026-11-05", ["--allow-retire"]);
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.slice(sent).map((q) => q.path)).toEqual(["/feed/4.xml"]);
    const counts = sql<{ source_id: string; n: number }>(
      dir,
      "select source_id, count(*) as n from records group by source_id order by source_id",
    );
    expect(counts).toEqual([
      { source_id: "f1", n: 2 },
      { source_id: "f2", n: 2 },
      { source_id: "f4", n: 2 },
    ]);
    // A catalog that no longer validates: the night refuses (exit 2, naming the file) and
    // nothing stored is touched.
    writeFileSync(catalog, "governments: []\nsources:\n  - { id: broken }\n");
    const bad = await runMain([
      ...["night", "--catalog", catalog, "--data", dir],
      // Loopback only (the 20 hours after a caught-up past night are not held for it).
      "--allow-private-addresses",
    ]);
    expect(bad.code).toBe(2); // a catalog problem is configuration
    expect(bad.stderr).toContain("catalog.yaml");
    expect(sql<{ n: number }>(dir, "select count(*) as n from records")).toEqual([{ n: 6 }]);
  }, 120_000);
});
