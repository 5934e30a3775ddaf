import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedEntry, nightCli, rss, writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";

/**
 * A source a real night read, then retired by a catalog import (docs/catalog.md): no night
 * reads it again. `nor mark` of it is refused as `nor backfill restart` of it is (exit 2,
 * naming it retired), never "marked" with nothing to hold: before the fix the night's copy of
 * the catalog (night_catalog) made it "known", so the mark was written, said as done (exit 0),
 * and shown nowhere (`nor status` says it retired), while the same command on a retired source
 * no night had read was refused.
 */
describe("nor mark of a retired source (toperator)", () => {
  let fleet: Fleet;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    const site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const path of ["/a.xml", "/b.xml"])
      site.route(
        path,
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 2)),
      );
    dir = mkdtempSync(join(tmpdir(), "nor-mark-retired-"));
    const both = writeCatalog(dir, [
      feedEntry("kept", site.url("/a.xml")),
      feedEntry("gone", site.url("/b.xml")),
    ]);
    const night = await nightCli(both, dir, "2026-11-05");
    expect(night.code, night.stderr).toBe(0);
    // The same file, now without `gone`: the import retires it (one of two: --allow-retire).
    const one = writeCatalog(dir, [feedEntry("kept", site.url("/a.xml"))]);
    const imported = await runMain(["catalog", "import", one, "--data", dir, "--allow-retire"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("source gone retired");
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const marks = (source: string) => {
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      return db.prepare("select count(*) as n from marks where source_id = ?").get(source) as {
        n: number;
      };
    } finally {
      db.close();
    }
  };

  it("P24, P26: nor mark of a source a night read and an import then retired is refused (exit 2) naming it retired, as nor backfill restart of it is; no mark is recorded", async () => {
    const restart = await runMain(["backfill", "restart", "gone", "--data", dir]);
    expect(restart.code).toBe(2);
    expect(restart.stderr).toContain("gone: retired ");

    const notRead = await runMain([
      "mark",
      "gone",
      "--not-read",
      "--reason",
      "owner asked by phone",
      "--data",
      dir,
    ]);
    expect(notRead.code, notRead.stdout).toBe(2);
    expect(notRead.stdout).toBe("");
    expect(notRead.stderr).toMatch(
      /^nor: gone: retired \d{4}-\d{2}-\d{2}T[\d:.]+Z \(no longer in the catalog\), so no night reads it; nothing changed\n$/,
    );
    const read = await runMain(["mark", "gone", "--read", "--data", dir]);
    expect(read.code).toBe(2);
    expect(read.stderr).toContain("gone: retired ");
    expect(marks("gone").n).toBe(0);

    // The source in use is marked as ever.
    const kept = await runMain(["mark", "kept", "--not-read", "--reason", "r", "--data", dir]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(marks("kept").n).toBe(1);
  });
});
