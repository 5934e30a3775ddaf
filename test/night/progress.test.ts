import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/** `nor night` in this process with stdout and stderr saying they are a terminal. */
async function nightOnTty(catalog: string, data: string, night: string): Promise<string> {
  const args = ["night", "--catalog", catalog, "--data", data, "--night", night];
  args.push("--allow-private-addresses", "--gap-ms", "50");
  const r = await runMain(args, { tty: true });
  expect(r.code, r.stderr).toBe(0);
  return r.stderr;
}

describe("what nor night shows while it runs", () => {
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
          .end(rss(site.origin, 2, "a")),
    );
    site.route(
      "/b.rss",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, "b")),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-progress-"));
    catalog = writeCatalog(dir, [
      [
        "id: a",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/a.rss")}`,
      ],
      [
        "id: b",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/b.rss")}`,
      ],
    ]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P13: on a terminal it shows a start line, sources done of total, requests, the time left to the deadline, and a summary with what to look at next", async () => {
    const out = await nightOnTty(catalog, join(dir, "tty"), "2026-11-05");
    expect(out).toMatch(
      /nor night: starting night 2026-11-05 · deadline [^\r\n]* New York \([^)]* from now\) · 2 sources on 1 site/,
    );
    expect(out).toMatch(/\[#+·*\] 1\/2 sources · \d+ requests · [^\r\n]* left to the deadline/);
    expect(out).toMatch(/\[#{20}\] 2\/2 sources · 3 requests · [^\r\n]* left to the deadline/);
    expect(out).toContain("nor night: night 2026-11-05 done");
    expect(out).toContain("  checked:   2 sources: 2 ok");
    // A first read: its records were already listed, said apart from the new.
    expect(out).toContain(
      "  new:       0 new records (and 3 records already listed: first reads and older pages, not new)",
    );
    expect(out).toContain("  requests:  3");
    expect(out).toMatch(/ {2}time: {6}\S.* used of .* to the deadline/);
    expect(out).toContain("  flags:     0 raised");
    expect(out).toMatch(
      /\n {2}durable: {3}answers kept \d+ ms after their last byte \(median; 99%: \d+ ms, longest \d+ ms\)\n/,
    );
    expect(out).toContain("  - nothing needs a look; the directory: `nor serve`");
  }, 90_000);

  it("P27: otherwise it writes one structured log line per source checked", async () => {
    const r = await nightCli(catalog, join(dir, "plain"), "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l["msg"] === "night start")).toMatchObject({
      sources: 2,
      sites: 1,
      resumed: false,
    });
    const checked = lines.filter((l) => l["msg"] === "source checked");
    expect(checked.map((l) => [l["source"], l["outcome"]]).sort()).toEqual([
      ["a", "ok"],
      ["b", "ok"],
    ]);
    // The summary a terminal shows, as one line.
    expect(lines.at(-1)).toMatchObject({
      msg: "night done",
      night: "2026-11-05",
      outcomes: { ok: 2 },
      newRecords: 0,
      alreadyListed: 3,
      requests: 3,
      flagsRaised: 0,
      deadlineReached: false,
      next: ["nothing needs a look; the directory: `nor serve`"],
    });
    // P8, P27: how soon each of the 3 answers was durable after its last byte.
    const durable = lines.at(-1)?.["durableMs"] as Record<string, number>;
    expect(durable).toMatchObject({ count: 3 });
    expect(durable["p50"]).toBeLessThanOrEqual(durable["p99"] as number);
    expect(durable["p99"]).toBeLessThanOrEqual(durable["max"] as number);
  }, 90_000);
});
