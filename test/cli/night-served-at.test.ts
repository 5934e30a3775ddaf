import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedEntry, rss, writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";
import { sayings } from "./sayings.js";

/**
 * `nor start` runs each night as a `nor night` process of its own, whose lines go to the
 * terminal the person ran `nor start` in: they said "nor night: …" and "the new records:
 * `nor serve`, then /new" while nor start served the directory already. nor start gives its
 * nights the directory's address (--served-at), and their lines name `nor start` and that.
 */
let fleet: Fleet;
const dir = mkdtempSync(join(tmpdir(), "nor-served-at-"));
beforeAll(async () => {
  fleet = await startFleet();
});
afterAll(async () => {
  await fleet.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the lines of a night nor start runs", () => {
  it("P13: name `nor start`, the command the person ran, and the directory it serves, not `nor night` or `nor serve`", async () => {
    const s = await fleet.server();
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    s.route(
      "/a.rss",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(s.origin, 2)),
    );
    const catalog = writeCatalog(dir, [feedEntry("served-a", `${s.origin}/a.rss`)]);
    const data = join(dir, "data");
    const served = "http://127.0.0.1:8080/";
    const r = await runMain(
      [
        "night",
        "--catalog",
        catalog,
        "--data",
        data,
        "--night",
        "2026-11-05",
        "--allow-private-addresses",
        "--gap-ms",
        "50",
        "--served-at",
        served,
      ],
      { tty: true },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^nor start: starting night 2026-11-05 · /m);
    expect(r.stderr).toContain("nor start: night 2026-11-05 done");
    expect(r.stderr).toContain(`  - nothing needs a look; the directory: ${served}`);
    expect(r.stderr).not.toMatch(/nor night|nor serve/);
  });

  it("P13: a --served-at that is no http(s) URL is refused before the night runs (its summary would make the new records' address from it, at the night's end)", async () => {
    const s = await fleet.server();
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    s.route(
      "/b.rss",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(s.origin, 2)),
    );
    const catalog = writeCatalog(dir, [feedEntry("served-b", `${s.origin}/b.rss`)]);
    for (const [text, says] of [
      ["directory", '--served-at: "directory" is not a URL'],
      ["ftp://127.0.0.1/", '--served-at: "ftp://127.0.0.1/" is not an http(s) URL'],
    ] as const) {
      const r = await runMain(
        [
          "night",
          "--catalog",
          catalog,
          "--data",
          join(dir, "bad-data"),
          "--night",
          "2026-11-05",
          "--allow-private-addresses",
          "--gap-ms",
          "50",
          "--served-at",
          text,
        ],
        { tty: true },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stderr).not.toMatch(/starting night/);
    }
    expect(s.requests).toHaveLength(0);
  });

  it("P13: nor start passes its directory's address to every night it runs", async () => {
    const catalog = writeCatalog(join(dir), [feedEntry("start-a", "http://127.0.0.1:9/a.rss")]);
    const data = join(dir, "start-data");
    // Two seconds before 01:00 in New York: the night runs at its time.
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 5, 59, 58));
    const { say, said } = sayings();
    const stop = new AbortController();
    const asked: string[][] = [];
    let url = "";
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
      },
      {
        clock,
        say,
        signal: stop.signal,
        onListening: (u) => (url = u),
        runNight: async (args) => {
          asked.push(args);
          return 0;
        },
      },
    );
    await said(/the next night runs at 2026-11-05 01:00/);
    await clock.advance(2_000);
    await said(/the night is done/);
    stop.abort();
    await running;
    expect(asked).toHaveLength(1);
    const at = asked[0]?.indexOf("--served-at") ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(asked[0]?.[at + 1]).toBe(url);
  });
});
