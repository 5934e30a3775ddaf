import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * `nor night`'s line for each source counts the requests this process sent so far by the same
 * rule as the night's summary (store/admin.ts sentByTheNight): a request its own address check
 * refused (blocked-address, P3) left nothing on the wire, so neither counts it.
 */
describe("the requests a source's line counts", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.7" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/a.rss",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, "a")),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-source-line-"));
    catalog = writeCatalog(dir, [feedEntry("a", site.url("/a.rss"))]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P27, P3: a source whose address the checker refused (loopback, without --allow-private-addresses) is logged with 0 requests, as the night's summary counts them", async () => {
    const args = ["night", "--catalog", catalog, "--data", join(dir, "data")];
    args.push("--night", "2026-11-05");
    const r = await runMain(args);
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const checked = lines.filter((l) => l["msg"] === "source checked");
    expect(checked).toHaveLength(1);
    expect(checked[0]).toMatchObject({ source: "a", outcome: "unreachable", requests: 0 });
    expect(String(checked[0]?.["reason"])).toContain("is not a public address (loopback)");
    expect(lines.find((l) => l["msg"] === "night done")).toMatchObject({ requests: 0 });
    // Nothing reached the site.
    expect(site.requests).toHaveLength(0);
  }, 90_000);

  it("P27: on a terminal, its progress line counts the same way", async () => {
    const args = ["night", "--catalog", catalog, "--data", join(dir, "tty")];
    args.push("--night", "2026-11-05");
    const r = await runMain(args, { tty: true });
    expect(r.stderr).toMatch(/\[#{20}\] 1\/1 source · 0 requests · /);
    expect(r.stderr).toContain("  requests:  0");
    expect(site.requests).toHaveLength(0);
  }, 90_000);
});
