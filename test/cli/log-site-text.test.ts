import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";
import { CONTROLS, nightNamingCoding } from "./site-text.js";

describe("nor log: what a site sent is never written to the operator's terminal raw (P27)", () => {
  it("P27: a Content-Encoding holding a C1 escape (CSI) and a tab, and 5 KB long, is logged as the site's failure, and `nor log` (table and --jsonl) writes it without a control and the table's line short", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-log-site-text-"));
    try {
      const coding = `x\u009b2J\u009b31m\tred${"y".repeat(5_000)}`;
      const r = await nightNamingCoding(dir, coding);
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
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
