/**
 * Found from outside, a site owner's side (tester-owner): what an owner asks of the operator,
 * answered with `nor log` and `nor site`, run in this process against a night that asked a
 * loopback site.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { feedEntry, nightCli, rss, writeCatalog } from "../night/cli-night.js";

describe("found from outside, a site owner's side (tester-owner)", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const feed = (_q: unknown, res: ServerResponse) =>
      void res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss(site.origin, 1, "x"));
    site.route("/public%20notices/feed.xml", feed);
    site.route("/caf%C3%A9/feed.xml", feed);
    dir = mkdtempSync(join(tmpdir(), "nor-tester-owner-"));
    const catalog = writeCatalog(dir, [
      feedEntry("notices", site.url("/public%20notices/feed.xml")),
      feedEntry("cafe", site.url("/café/feed.xml")),
    ]);
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The URLs `nor log --url-contains TEXT` lists for the store (none: "no attempts match"). */
  const found = async (text: string) => {
    const r = await runMain(["log", "--data", dir, "--jsonl", "--url-contains", text]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => (JSON.parse(l) as { url: string }).url);
  };

  it("P27: nor log --url-contains finds a page whose address holds a space or a non-ASCII letter when the owner writes it as a browser shows it (public notices, café), as when written percent-encoded", async () => {
    const notices = site.url("/public%20notices/feed.xml");
    const cafe = site.url("/caf%C3%A9/feed.xml");
    // As the request line and the log write it: found (held before the fix too).
    expect(await found("/public%20notices/")).toEqual([notices]);
    expect(await found("/caf%c3%a9/")).toEqual([cafe]);
    // As the owner's browser shows the address: the same requests.
    expect(await found("/public notices/")).toEqual([notices]);
    expect(await found("/café/feed")).toEqual([cafe]);
  });
});
