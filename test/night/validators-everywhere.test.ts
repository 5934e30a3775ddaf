import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { discover } from "../../src/night/discover.js";
import { openStore } from "../../src/store/db.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";

/**
 * P12 on every GET: `nor discover`'s homepage fetch sends the stored validators of that URL,
 * and a 304 is read from the stored copy (P8), so the candidates are still found.
 */
describe("conditional requests everywhere (P12)", () => {
  let fleet: Fleet;
  const dirs: string[] = [];
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P12, P8: a second nor discover on a homepage asks with If-None-Match; the 304 is read from the stored copy", async () => {
    const s = await fleet.server();
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    s.route("/", (req, res) => {
      if (req.headers["if-none-match"] === '"home-1"') return void res.writeHead(304).end();
      res
        .writeHead(200, { "content-type": "text/html", etag: '"home-1"' })
        .end(
          `<html><head><link rel="alternate" type="application/rss+xml" title="Agendas" href="/RSSFeed.aspx?ModID=65"></head><body><a href="/AgendaCenter">Agendas</a></body></html>`,
        );
    });
    const dir = mkdtempSync(join(tmpdir(), "nor-validators-"));
    dirs.push(dir);
    // The second run a day later (another night: within one night the answer would be
    // replayed from the journal without asking at all).
    let shift = 0;
    const clock = { now: () => Date.now() + shift, sleep: systemClock.sleep };
    const ids = new CounterIds();
    const run = async () => {
      const store = await openStore({ kind: "sqlite", dir });
      try {
        return await discover(store, s.url("/"), {
          clock,
          ids,
          dataDir: dir,
          allowPrivateAddresses: true,
          gapMs: 20,
        });
      } finally {
        await store.close();
      }
    };
    const first = await run();
    expect(first.kind).toBe("found");
    shift = 25 * 3600_000;
    const second = await run();
    expect(second.kind).toBe("found");
    if (first.kind === "found" && second.kind === "found")
      expect(second.candidates.map((c) => c.url)).toEqual(first.candidates.map((c) => c.url));
    const home = s.hits("/");
    expect(home).toHaveLength(2);
    expect(home[0]?.headers["if-none-match"]).toBeUndefined();
    expect(home[1]?.headers["if-none-match"]).toBe('"home-1"');
  }, 60_000);
});
