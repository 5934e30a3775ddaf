import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";

/** What a terminal obeys rather than shows: C0 controls but the line feed, DEL, C1 controls. */
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("nor log: what a site sent is never written to the operator's terminal raw (P27)", () => {
  it("P27: a Content-Encoding holding a C1 escape (CSI) and a tab, and 5 KB long, is logged as the site's failure, and `nor log` (table and --jsonl) writes it without a control and the table's line short", async () => {
    const fleet = await startFleet();
    const dir = mkdtempSync(join(tmpdir(), "nor-log-site-text-"));
    try {
      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // Node writes a header value's bytes 0x80-0xFF as they are (latin1): 0x9B is the C1
      // Control Sequence Introducer, which a terminal reads as ESC [ (here: clear the screen).
      const coding = `x\u009b2J\u009b31m\tred${"y".repeat(5_000)}`;
      site.route("/feed/1.xml", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": coding });
        res.end("<rss/>");
      });
      const catalog = writeCatalog(dir, [
        [
          "id: enc-1",
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${site.url("/feed/1.xml")}`,
        ],
      ]);
      const r = await nightCli(catalog, dir, "2026-11-05");
      expect(r.code, r.stderr).toBe(0);

      const table = await runMain(["log", "--data", dir]);
      expect(table.code, table.stderr).toBe(0);
      // The failure is there (the operator sees why), but as text, not as controls.
      expect(table.stdout).toMatch(/unsupported Content-Encoding: x/);
      expect(table.stdout).not.toMatch(CONTROLS);
      for (const line of table.stdout.trimEnd().split("\n")) expect(line.length).toBeLessThan(1000);

      const jsonl = await runMain(["log", "--data", dir, "--jsonl"]);
      expect(jsonl.code, jsonl.stderr).toBe(0);
      expect(jsonl.stdout).toMatch(/unsupported Content-Encoding: x/);
      expect(jsonl.stdout).not.toMatch(CONTROLS);
      // Still JSON, one object a line, meaning what the store holds.
      for (const line of jsonl.stdout.trimEnd().split("\n")) JSON.parse(line);
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
