import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * A site that said no earlier tonight stays closed across a restart (P21), and the sources not
 * asked on account of it say what the site said: the source whose request got the no, run
 * again after the checker was killed before its outcome was written, is told by it too
 * (P23: a no is shown with its reason), not only "the site said no".
 */
describe("what a source not asked because its site said no tonight says", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;
  const NIGHT = "2026-11-05";

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.9" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const name of ["a", "b"])
      site.route(
        `/${name}.rss`,
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 1, name)),
      );
    dir = mkdtempSync(join(tmpdir(), "nor-closed-reason-"));
    catalog = writeCatalog(dir, [
      feedEntry("a", site.url("/a.rss")),
      feedEntry("b", site.url("/b.rss")),
    ]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P21, P23: after a restart, the sources of a site that answered a 429 past its retries earlier tonight are not asked, each saying what the site said", async () => {
    const data = join(dir, "data");
    // The process before: its request to a.rss answered 429 with Retry-After: 120 (a no,
    // written from the answer's head), then it was killed before a's outcome was written.
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const journal = new SqlJournal(store.db);
      const t0 = Date.parse("2026-11-05T06:00:00Z");
      const url = site.url("/a.rss");
      const a = await journal.admit(
        {
          night: NIGHT,
          key: `GET ${url}`,
          method: "GET",
          url,
          site: "127.0.0.9",
          origin: new URL(url).origin,
          source: "a",
          purpose: "page",
          gapMs: 2000,
          replayAllowed: true,
        },
        "gone-host:1:dead",
        t0,
      );
      if (a.kind !== "go") throw new Error(a.kind);
      await journal.waitAsked(a.id, {
        status: 429,
        retryAt: t0 + 86_400_000,
        closeSite: "HTTP 429 (retry-after-too-long)",
      });
    } finally {
      await store.close();
    }
    const r = await runMain([
      "night",
      ...["--catalog", catalog, "--data", data, "--night", NIGHT],
      "--allow-private-addresses",
    ]);
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const checked = lines.filter((l) => l["msg"] === "source checked");
    expect(checked.map((l) => [l["source"], l["outcome"], l["reason"]]).sort()).toEqual([
      ["a", "refused", "site said no earlier tonight: HTTP 429 (retry-after-too-long)"],
      ["b", "refused", "site said no earlier tonight: HTTP 429 (retry-after-too-long)"],
    ]);
    expect(site.requests).toHaveLength(0);
  }, 90_000);
});
