import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain as runNor } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/**
 * P4 and P18 from the outside: a source lists an API (disallowed by robots.txt), a download
 * file (gone) and a feed (works). The built CLI reads it through the feed; the server never
 * sees a request for the API path; `nor status` says which way was used and why the better
 * ones were passed over.
 */
describe("the choice of way, shown in nor status", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.2" });
    site.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(200).end("User-agent: *\nDisallow: /api/\n"),
    );
    site.route("/api/agendas", (_q, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}');
    });
    site.route("/data/agendas.csv", (_q, res) => void res.writeHead(404).end("no such file"));
    site.route("/agendas.rss", (_q, res) => {
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(site.origin, 3));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-way-"));
    catalog = writeCatalog(dir, [
      [
        "id: test-agendas",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/agendas.rss")}`,
        "alternates:",
        `  - { access: api, url: "${site.url("/api/agendas")}", api: { items: items, title: title } }`,
        `  - { access: download, url: "${site.url("/data/agendas.csv")}", download: { title: Title } }`,
      ],
    ]);
  }, 120_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P4, P18: the api alternate disallowed by robots.txt is never requested; the gone download is passed over; the feed is used, and nor status shows via feed and why", async () => {
    const run = await nightCli(catalog, dir, "2026-11-05");
    expect(run.code, run.stderr).toBe(0);
    // P18: the site saw robots.txt, the download (gone) and the feed — never /api/.
    expect(site.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/data/agendas.csv",
      "/agendas.rss",
    ]);
    expect(site.hits("/api/agendas")).toEqual([]);

    const human = await runNor(["status", "--data", dir]);
    expect(human.code, human.stderr).toBe(0);
    const [header, line] = human.stdout.trim().split("\n");
    const cols = (header ?? "").split("\t");
    const cells = (line ?? "").split("\t");
    const via = cells[cols.indexOf("via")];
    expect(via).toBe("feed (api disallowed by robots.txt; download gone (404))");
    expect(cells[cols.indexOf("outcome")]).toBe("ok");

    const json = await runNor(["status", "--data", dir, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: "test-agendas",
      lastNight: "2026-11-05",
      lastOutcome: "ok",
      recordsKnown: 3,
      way: { access: "feed", url: site.url("/agendas.rss") },
      skipped: [
        { access: "api", url: site.url("/api/agendas"), why: "disallowed by robots.txt" },
        { access: "download", url: site.url("/data/agendas.csv"), why: "gone (404)" },
      ],
    });
  }, 120_000);
});
