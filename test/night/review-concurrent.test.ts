import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightProcess, rss, writeCatalog } from "./cli-night.js";

/**
 * Two `nor night` processes on one store at once: the second joins the night as a worker. The
 * lanes are leased and every request is admitted by the shared journal, so no source is
 * checked twice and the site never sees two requests in flight (P9, P10).
 */
describe("review: two nights at once on one store", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.5" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const n of [1, 2, 3]) {
      site.route(`/feed/${n}.xml`, (_q, res) => {
        // Slow enough that both processes are alive at once.
        setTimeout(
          () =>
            void res
              .writeHead(200, { "content-type": "application/rss+xml" })
              .end(rss(site.origin, 2, `f${n}`)),
          700,
        );
      });
    }
    dir = mkdtempSync(join(tmpdir(), "nor-review-conc-"));
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P9, P10: a second nor night on the same store while one runs joins it: every source is asked once, never two in flight; a stale lock from a killed night does not block", async () => {
    const catalog = writeCatalog(
      dir,
      [1, 2, 3].map((n) => [
        `id: f${n}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(`/feed/${n}.xml`)}`,
      ]),
    );
    const first = nightProcess(catalog, dir, "2026-11-05");
    // Start the second once the first is at work (its first request has arrived).
    for (let i = 0; i < 200 && site.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(site.requests.length).toBeGreaterThan(0);
    const second = await nightProcess(catalog, dir, "2026-11-05");
    const one = await first;
    expect(one.code, one.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const paths = site.requests.map((r) => r.path).sort();
    expect(paths).toEqual(["/feed/1.xml", "/feed/2.xml", "/feed/3.xml", "/robots.txt"]);
    // P9: never two in flight to the site.
    const byStart = [...site.requests].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < byStart.length; i++)
      expect(byStart[i]!.startedAt).toBeGreaterThanOrEqual(byStart[i - 1]!.endedAt ?? 0);

    // A lock left by a killed process (a pid that is not alive) is stale.
    writeFileSync(join(dir, "night.lock"), "2147483646\n");
    const third = await nightProcess(catalog, dir, "2026-11-06");
    expect(third.code, third.stderr).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    const n = db
      .prepare("select count(*) as n from night_sources where night = ?")
      .get("2026-11-06");
    db.close();
    expect(n).toEqual({ n: 3 });
  }, 120_000);
});
