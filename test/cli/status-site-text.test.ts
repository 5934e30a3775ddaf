import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";
import { CONTROLS, nightNamingCoding } from "./site-text.js";

describe("nor status: what a site sent is never written to the operator's terminal raw (P27)", () => {
  it("P27: a source's last reason holding a site's C1 escape and a tab (a Content-Encoding it named) is written by `nor status --json` without a control, parsing to the reason the store holds, and the table keeps its columns", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-status-site-text-"));
    try {
      const coding = "x\u009b2J\u009b31m\tred";
      const r = await nightNamingCoding(dir, coding);
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
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
