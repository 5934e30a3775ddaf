import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli } from "./cli-night.js";

/**
 * P4 (api and download ways) with the catalog stamp: zod is loaded lazily by the night (only
 * for api and download ways), and a night of files imported unchanged reads its sources'
 * entries from the store. An invalid api field map must still be refused, naming its file and
 * line, whether the store is new or holds another catalog's stamp; and a night of an api
 * catalog imported unchanged must still read the api (its field map's schema loaded).
 */
describe("api ways and the catalog stamp", () => {
  let fleet: Fleet;
  let site: FleetServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.8" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/api/events",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            value: [
              { id: 1, eventName: "Council meeting", startDateTime: "2026-11-02T18:00:00Z" },
              { id: 2, eventName: "Zoning board", startDateTime: "2026-11-03T18:00:00Z" },
            ],
          }),
        ),
    );
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-stamp-ways-"));
    dirs.push(dir);
    return dir;
  };
  const catalog = (dir: string, api: string) => {
    const file = join(dir, "api.yaml");
    writeFileSync(
      file,
      [
        "governments:",
        "  - { id: village-of-test, name: Village of Test, kind: village }",
        "sources:",
        "  - id: a1",
        "    government: village-of-test",
        "    records: agendas",
        "    access: api",
        `    url: "${site.url("/api/events")}"`,
        `    api: ${api}`,
        "",
      ].join("\n"),
    );
    return file;
  };
  const good = '{ items: value, title: eventName, date: startDateTime, id: id, link: "/e/{id}" }';
  const bad = "{ items: value, title: eventName, colour: red }";

  it("P4: an invalid api field map is refused with its file and line, on a new store and on one holding another stamp", async () => {
    const dir = fresh();
    const data = join(dir, "data");
    const file = catalog(dir, bad);
    const first = await nightCli(file, data, "2026-11-05");
    expect(first.code).not.toBe(0);
    expect(first.stderr).toContain(`${file}:9`);
    expect(existsSync(join(data, "nor.db"))).toBe(false);

    // A store that holds the valid catalog's stamp; then the file is made invalid.
    catalog(dir, good);
    const imported = await runMain(["catalog", "import", file, "--data", data]);
    expect(imported.code, imported.stderr).toBe(0);
    catalog(dir, bad);
    const again = await nightCli(file, data, "2026-11-05");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`${file}:9`);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      expect(db.prepare("select count(*) as n from nights").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 120_000);

  it("P4: a night of an api catalog imported unchanged reads the api (its field map's schema loaded lazily)", async () => {
    const dir = fresh();
    const data = join(dir, "data");
    const file = catalog(dir, good);
    const imported = await runMain(["catalog", "import", file, "--data", data]);
    expect(imported.code, imported.stderr).toBe(0);
    const stamped = () => {
      const db = new Database(join(data, "nor.db"), { readonly: true });
      try {
        return db.prepare("select digest, stamped_at from catalog_stamp").all();
      } finally {
        db.close();
      }
    };
    const stamp = stamped();
    expect(stamp).toHaveLength(1);
    const before = site.requests.filter((q) => q.path === "/api/events").length;
    const r = await nightCli(file, data, "2026-11-05");
    // The files were not imported again (the stamp's time is the import's).
    expect(stamped()).toEqual(stamp);
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.filter((q) => q.path === "/api/events").length).toBe(before + 1);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      expect(
        db.prepare("select outcome, records_found from night_sources where source_id = 'a1'").all(),
      ).toEqual([{ outcome: "ok", records_found: 2 }]);
    } finally {
      db.close();
    }
  }, 120_000);
});
