import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { setSiteRule, siteRules } from "../../src/store/site-rules.js";
import { nor } from "./cli-capture.js";

/**
 * An owner's request given again as it stands (the same gap, path or not-read, for the same
 * reason: an operator re-typing the e-mail's request, or two operators answering one e-mail)
 * changes nothing: the request keeps the date it was first honoured from, which is what the
 * operator tells the site owner ("since 4 December"), and no replaced row is kept for it.
 */
const AT = Date.parse("2026-12-04T15:00:00Z");
const LATER = Date.parse("2026-12-06T15:00:00Z");

describe("an owner's request given again", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-site-again-"));
    dirs.push(dir);
    return dir;
  };

  it("P10, P24: the same gap, path or not-read for the same reason keeps the first date; a new reason or value replaces it", async () => {
    const dir = fresh();
    const store = await openStore({ kind: "sqlite", dir });
    try {
      const rules = [
        { site: "example.gov", kind: "gap" as const, value: "30000", reason: "e-mail of Dec 4" },
        { site: "example.gov", kind: "leave-alone" as const, value: "/permits/", reason: "phone" },
        { site: "example.gov", kind: "not-read" as const, reason: "letter" },
      ];
      for (const r of rules) {
        const first = await setSiteRule(store.db, { ...r, at: AT, by: "ops" });
        expect(first.kind).toBe("set");
        const again = await setSiteRule(store.db, { ...r, at: LATER, by: "other" });
        expect(again).toMatchObject({ kind: "already", rule: { at: AT, by: "ops" } });
      }
      const inForce = await siteRules(store.db, "example.gov");
      expect(inForce.map((r) => [r.kind, r.at])).toEqual([
        ["gap", AT],
        ["leave-alone", AT],
        ["not-read", AT],
      ]);
      // Nothing replaced: one row a request, none kept as cleared.
      const rows = await store.db.selectFrom("site_rules").select("id").execute();
      expect(rows).toHaveLength(3);
      // Another value or another reason is a new request: it replaces the old, dated now.
      const slower = await setSiteRule(store.db, {
        ...rules[0]!,
        value: "60000",
        at: LATER,
        by: "ops",
      });
      expect(slower).toMatchObject({ kind: "set", replaced: 1 });
      const reworded = await setSiteRule(store.db, {
        ...rules[2]!,
        reason: "second letter",
        at: LATER,
        by: "ops",
      });
      expect(reworded).toMatchObject({ kind: "set", replaced: 1 });
      const after = await siteRules(store.db, "example.gov");
      expect(after.map((r) => [r.kind, r.value ?? "", r.at])).toEqual([
        ["leave-alone", "/permits/", AT],
        ["gap", "60000", LATER],
        ["not-read", "", LATER],
      ]);
    } finally {
      await store.close();
    }
  });

  it("P24: `nor site` given the same request twice says it already stands, since its first date, and changes nothing (exit 0)", async () => {
    const dir = fresh();
    const store = await openStore({ kind: "sqlite", dir });
    await setSiteRule(store.db, {
      site: "example.gov",
      kind: "gap",
      value: "30000",
      reason: "e-mail",
      at: AT,
      by: "ops",
    });
    await store.close();
    const r = await nor(
      "site",
      "example.gov",
      "--gap",
      "30s",
      "--reason",
      "e-mail",
      "--by",
      "kim",
      "--data",
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "example.gov: already at least 30 s between requests (since 2026-12-04, by ops); nothing changed",
    );
    const listed = await nor("site", "example.gov", "--json", "--data", dir);
    const lines = listed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; at: string; by: string });
    expect(lines.filter((l) => l.kind === "gap")).toEqual([
      expect.objectContaining({ at: new Date(AT).toISOString(), by: "ops" }),
    ]);
  });
});
