/**
 * Adversarial review of 40eb45d at the night's level: a real `nor night` (separate process)
 * over loopback servers, resumed as after a kill. Fails until the defect is fixed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";

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

let fleet: Fleet;
let home: FleetServer;
let vendor: FleetServer;
const dirs: string[] = [];

beforeAll(async () => {
  fleet = await startFleet();
  home = await fleet.server({ host: "127.0.0.31" });
  vendor = await fleet.server({ host: "127.0.0.32" });
  for (const s of [home, vendor])
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
  // f1's feed moved to a vendor's host, which refuses us; f2 lives on the home site.
  home.route("/feed/1.xml", (_q, res) => {
    res.writeHead(301, { location: vendor.url("/feed/1.xml") }).end();
  });
  vendor.route("/feed/1.xml", (_q, res) => void res.writeHead(403).end("forbidden"));
  home.route(
    "/feed/2.xml",
    (_q, res) =>
      void res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss(home.origin, 2, "f2")),
  );
}, 60_000);

afterAll(async () => {
  await fleet?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it("P21, P23: after a restart, a no said by a redirect target's site does not mark the source's own site closed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-review-night-"));
  dirs.push(dir);
  const feed = (n: number) => [
    `id: f${n}`,
    "government: village-of-test",
    "records: agendas",
    "access: feed",
    `url: ${home.url(`/feed/${n}.xml`)}`,
  ];
  const catalog = writeCatalog(dir, [feed(1), feed(2)]);
  const first = await nightCli(catalog, dir, "2026-11-05");
  expect(first.code, first.stderr).toBe(0);
  const outcomes = () =>
    sql<{ source_id: string; outcome: string; reason: string | null }>(
      dir,
      "select source_id, outcome, reason from night_sources where night = ? order by source_id",
      "2026-11-05",
    );
  expect(outcomes().map((o) => [o.source_id, o.outcome])).toEqual([
    ["f1", "refused"],
    ["f2", "ok"],
  ]);
  // As if killed after f1 was committed and before f2 was: the night is resumed.
  sql(dir, "delete from night_sources where night = ? and source_id = 'f2'", "2026-11-05");
  sql(dir, "update nights set finished_at = null");
  const again = await nightCli(catalog, dir, "2026-11-05");
  expect(again.code, again.stderr).toBe(0);
  // The home site never said no tonight: f2 is read (from the stored answer), not "refused".
  expect(outcomes().map((o) => [o.source_id, o.outcome])).toEqual([
    ["f1", "refused"],
    ["f2", "ok"],
  ]);
});

it("owners' requests (P10): `nor site` records a slower pace for a site with its reason", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-review-site-"));
  dirs.push(dir);
  // `nor site` works on a store that is there; it never makes one (a mistyped --data is exit 2).
  await (await openStore({ kind: "sqlite", dir })).close();
  const r = await runMain([
    "site",
    "example.gov",
    "--gap",
    "30s",
    "--reason",
    "owner's e-mail of Nov 4",
    "--data",
    dir,
  ]);
  expect(r.code, r.stderr).toBe(0);
});
