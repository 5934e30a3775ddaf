import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { setSiteRule, siteRules } from "../../src/store/site-rules.js";

/**
 * A path left alone is read as robots.txt reads it (admission: both sides percent-encoded in
 * one normal form), so `/bids–rfps/` and `/bids%E2%80%93rfps/` (or `%e2%80%93`) are one request.
 * Given again in the other spelling, for the same reason, it already stands: no second rule in
 * force for the same paths, and the first keeps its date.
 */
const AT = Date.parse("2026-12-04T15:00:00Z");
const LATER = Date.parse("2026-12-06T15:00:00Z");

describe("a path left alone given again in another spelling", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P24, P18: a path left alone given again percent-encoded otherwise, for the same reason, already stands and keeps its first date", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-site-spelling-"));
    dirs.push(dir);
    const store = await openStore({ kind: "sqlite", dir });
    try {
      const r = { site: "example.gov", kind: "leave-alone" as const, reason: "e-mail" };
      const first = await setSiteRule(store.db, { ...r, value: "/bids–rfps/", at: AT, by: "ops" });
      expect(first.kind).toBe("set");
      for (const value of ["/bids%E2%80%93rfps/", "/bids%e2%80%93rfps/"]) {
        const again = await setSiteRule(store.db, { ...r, value, at: LATER, by: "kim" });
        expect(again).toMatchObject({ kind: "already", rule: { at: AT, value: "/bids–rfps/" } });
      }
      // Another path is another request.
      const other = await setSiteRule(store.db, { ...r, value: "/bids/", at: LATER, by: "kim" });
      expect(other.kind).toBe("set");
      const inForce = await siteRules(store.db, "example.gov");
      expect(inForce.map((x) => [x.value, x.at])).toEqual([
        ["/bids–rfps/", AT],
        ["/bids/", LATER],
      ]);
    } finally {
      await store.close();
    }
  });
});
