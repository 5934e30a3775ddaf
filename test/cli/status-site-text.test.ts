import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFleet } from "../fleet/fleet.js";
import { nightCli, writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";

/** What a terminal obeys rather than shows: C0 controls but the line feed, DEL, C1 controls. */
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("nor status: what a site sent is never written to the operator's terminal raw (P27)", () => {
  it("P27: a source's last reason holding a site's C1 escape and a tab (a Content-Encoding it named) is written by `nor status --json` without a control, parsing to the reason the store holds, and the table keeps its columns", async () => {
    const fleet = await startFleet();
    const dir = mkdtempSync(join(tmpdir(), "nor-status-site-text-"));
    try {
      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // Node writes a header value's bytes 0x80-0xFF as they are (latin1): 0x9B is the C1
      // Control Sequence Introducer, which a terminal reads as ESC [ (here: clear the screen).
      const coding = "x\u009b2J\u009b31m\tred";
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

      for (const args of [["--json"], ["--json", "--with-nights"], []]) {
        const out = await runMain(["status", "--data", dir, ...args]);
        expect(out.code, out.stderr).toBe(0);
        expect(out.stdout).toMatch(/Content-Encoding: x/);
        if (args.length > 0) expect(out.stdout).not.toMatch(CONTROLS);
        else {
          // The table: no control but the tabs between its columns, ten in each source's row.
          expect(out.stdout.replace(/\t/g, "")).not.toMatch(CONTROLS);
          const [head, row] = out.stdout.split("\n");
          expect(head?.split("\t")).toHaveLength(10);
          expect(row?.split("\t")).toHaveLength(10);
        }
      }
      const json = await runMain(["status", "--data", dir, "--json"]);
      const rows = JSON.parse(json.stdout) as { lastReason?: string }[];
      // Still JSON meaning what the store holds: the escape is JSON's own.
      expect(rows[0]?.lastReason).toContain(coding.toLowerCase());
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
