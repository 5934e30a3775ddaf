import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import { runMain } from "../cli/cli-capture.js";
import { ROOT } from "../cli/run-nor.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "./cli-night.js";

/** Today's night in New York: a night under another date is over (its next night began). */
const TONIGHT = nightOf(Date.now());

/**
 * A night that runs past midnight and is killed must be resumed as the same night: `nor night`
 * without --night goes on with the night still under way (deadline not passed) instead of
 * starting a new date and checking every source again.
 */
describe("nor night without --night", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;
  let onArrival: (() => void) | undefined;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.12" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const name of ["a", "b", "c"]) {
      site.route(`/${name}.rss`, (_q, res) => {
        onArrival?.();
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, name));
      });
    }
    dir = mkdtempSync(join(tmpdir(), "nor-resume-"));
    catalog = writeCatalog(
      dir,
      ["a", "b", "c"].map((n) => [
        `id: ${n}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(`/${n}.rss`)}`,
      ]),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P13: resumes the night still under way, so no source is checked twice under a new date", async () => {
    // First run, for an explicit night, killed as its second feed request arrives.
    const args = [
      "night",
      "--catalog",
      catalog,
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "300",
      "--concurrency",
      "1",
    ];
    const first = spawn(
      process.execPath,
      [join(ROOT, "bin", "nor.js"), ...args, "--night", TONIGHT],
      { stdio: "ignore" },
    );
    let feeds = 0;
    onArrival = () => {
      feeds++;
      if (feeds === 2) first.kill("SIGKILL");
    };
    await new Promise((r) => first.once("exit", r));
    onArrival = undefined;

    // The resuming run is not killed: it runs in this process.
    const again = await runMain(args);
    expect(again.code, again.stderr).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare("select night, source_id from night_sources order by source_id")
        .all();
      expect(rows).toEqual([
        { night: TONIGHT, source_id: "a" },
        { night: TONIGHT, source_id: "b" },
        { night: TONIGHT, source_id: "c" },
      ]);
    } finally {
      db.close();
    }
    // Each feed asked once, apart from the one whose answer the kill cut off.
    const asked = site.requests.filter((r) => r.path.endsWith(".rss")).map((r) => r.path);
    expect(new Set(asked)).toEqual(new Set(["/a.rss", "/b.rss", "/c.rss"]));
    expect(asked.length).toBeLessThanOrEqual(4);
  }, 120_000);
});
