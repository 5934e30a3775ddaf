import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";
import { runMain as runNor } from "./cli-capture.js";

/**
 * The flag rules through the CLI (in-process) over the loopback fleet (P24): a site that says no
 * (403) four nights running, and a feed that empties after a night with records. `nor flags`
 * shows what a person must look at; the sites' own logs show the checker went on asking them
 * every night the same way (P23) — it flags, it never decides.
 */
interface Flag {
  id: string;
  kind: string;
  source: string;
  night: string;
}

describe("nor flags after real nights", () => {
  let fleet: Fleet;
  let refusing: FleetServer;
  let emptying: FleetServer;
  let dir: string;
  let catalog: string;
  let feedItems = 2;

  beforeAll(async () => {
    fleet = await startFleet();
    refusing = await fleet.server({ host: "127.0.0.2" });
    emptying = await fleet.server({ host: "127.0.0.3" });
    for (const s of [refusing, emptying])
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    refusing.route("/agendas.rss", (_q, res) => void res.writeHead(403).end("Forbidden"));
    emptying.route("/agendas.rss", (_q, res) => {
      res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss(emptying.origin, feedItems));
    });
    dir = mkdtempSync(join(tmpdir(), "nor-flags-"));
    catalog = writeCatalog(
      dir,
      [
        ["refusing-feed", refusing],
        ["emptying-feed", emptying],
      ].map(([id, s]) => [
        `id: ${id as string}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${(s as FleetServer).url("/agendas.rss")}`,
      ]),
    );
  }, 120_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const flags = async (): Promise<Flag[]> => {
    const r = await runNor(["flags", "--json", "--data", dir]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Flag[];
  };

  it("P24, P23: a no three nights running is flagged once (not again the fourth night), a feed that empties is flagged no-records, and both sources stay read and asked every night", async () => {
    const nights = ["2026-11-05", "2026-11-06", "2026-11-07", "2026-11-08"];
    for (const [i, night] of nights.entries()) {
      if (i === 1) feedItems = 0;
      const from = { r: refusing.requests.length, e: emptying.requests.length };
      const run = await nightCli(catalog, dir, night);
      expect(run.code, run.stderr).toBe(0);
      // P23: every night, the same one request to each page.
      const asked = (s: FleetServer, n: number) =>
        s.requests
          .slice(n)
          .filter((q) => q.path !== "/robots.txt")
          .map((q) => q.path);
      expect(asked(refusing, from.r)).toEqual(["/agendas.rss"]);
      expect(asked(emptying, from.e)).toEqual(["/agendas.rss"]);
      const now = await flags();
      const kinds = now.map((f) => `${f.source}:${f.kind}@${f.night}`).sort();
      const expected = [];
      if (i >= 1) expected.push("emptying-feed:no-records@2026-11-06");
      if (i >= 2) expected.push("refusing-feed:no-three-nights@2026-11-07");
      expect(kinds, `after ${night}`).toEqual(expected.sort());
    }
    const status = JSON.parse((await runNor(["status", "--json", "--data", dir])).stdout) as {
      id: string;
      reading: boolean;
      lastOutcome: string;
      flags: string[];
    }[];
    expect(status.map((s) => [s.id, s.reading, s.lastOutcome, s.flags])).toEqual([
      ["emptying-feed", true, "no-records", ["no-records"]],
      ["refusing-feed", true, "refused", ["no-three-nights"]],
    ]);
    const human = await runNor(["flags", "--data", dir]);
    expect(human.stdout).toMatch(/refusing-feed\ta no on 3 nights in a row/);
  }, 240_000);
});
