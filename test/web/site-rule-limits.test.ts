import { existsSync } from "node:fs";
import { join } from "node:path";
import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setSiteRule, siteRules } from "../../src/store/site-rules.js";
import { runMain } from "../cli/cli-capture.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * An owner's rule is checked alike wherever it is entered (`nor site`, the console's site
 * form): a gap longer than a night is refused (keeping the checker off is `--not-read`), and a
 * path to leave alone starts with / and holds no spaces, as robots.txt writes one.
 */
describe("an owner's gap and paths, in the CLI and the console alike", () => {
  let f: Fixture;
  let b: Browser;

  beforeEach(async () => {
    f = await consoleFixture();
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
  });
  afterEach(async () => {
    await f?.close();
  });

  it("P10, P26: a gap over 24h and a path with a space are refused by both (exit 2, 400), nothing recorded", async () => {
    const csrf = await b.token("/console/sites");
    const res = await b.post("/console/sites/rules", {
      csrf,
      site: "a.gov",
      kind: "gap",
      value: "999999h",
      reason: "the owner asked",
    });
    expect(res.status).toBe(400);
    expect(load(await res.text())("main").text()).toContain("is longer than a night (at most 24h)");
    expect(await siteRules(f.db)).toEqual([]);
    // The CLI on the same store when it is the SQLite file (the fixture is a PostgreSQL
    // database when the tests run with one).
    if (existsSync(join(f.dir, "nor.db"))) {
      const why = ["--reason", "the owner asked", "--data", f.dir];
      const gap = await runMain(["site", "a.gov", "--gap", "999999h", ...why]);
      expect(gap.code).toBe(2);
      expect(gap.stderr).toContain("--gap: 999999h is longer than a night (at most 24h)");
      const path = await runMain(["site", "a.gov", "--leave-alone", "/a b/", ...why]);
      expect(path.code).toBe(2);
      expect(path.stderr).toContain('--leave-alone: "/a b/" must start with / and hold no spaces');

      // A path stored before the rule (with a space) can still be cleared as it was written.
      const clear = await runMain(["site", "a.gov", "--clear-leave-alone", "/a b/", ...why]);
      expect(clear.stderr).not.toContain("hold no spaces");
      // A day is still a gap an owner may ask for.
      const day = await runMain(["site", "a.gov", "--gap", "24h", ...why]);
      expect(day.code, day.stderr).toBe(0);
    }
  });
  it("P26: a path to leave alone with a terminal's escape, a bell or a direction override, or longer than any address asked, is refused by both (exit 2, 400), nothing recorded", async () => {
    const csrf = await b.token("/console/sites");
    const why = { csrf, site: "a.gov", kind: "leave-alone", reason: "the owner asked" };
    for (const value of ["/b\x1b]0;pwned\x07", "/permits/\u202egnp.", `/${"a".repeat(2048)}`]) {
      const res = await b.post("/console/sites/rules", { ...why, value });
      expect(res.status).toBe(400);
      const text = load(await res.text())("main").text();
      expect(text).toMatch(/A path to leave alone must (hold no control|be at most 2,048)/);
      expect(text).not.toMatch(/[\x07\x1b\u202e]/u);
    }
    expect(await siteRules(f.db)).toEqual([]);
    if (existsSync(join(f.dir, "nor.db"))) {
      const args = ["--reason", "the owner asked", "--data", f.dir];
      const esc = await runMain(["site", "a.gov", "--leave-alone", "/b\x1b]0;pwned\x07", ...args]);
      expect(esc.code).toBe(2);
      expect(esc.stderr).toContain("must hold no control or formatting character (U+001B)");
      const long = await runMain([
        "site",
        "a.gov",
        "--leave-alone",
        `/${"a".repeat(5000)}`,
        ...args,
      ]);
      expect(long.code).toBe(2);
      expect(long.stderr).toContain("must be at most 2,048 characters");
      expect(long.stderr.length).toBeLessThan(1000);
      expect(await siteRules(f.db)).toEqual([]);
      // One stored before such paths were refused is listed escaped, and can still be cleared.
      await setSiteRule(f.db, {
        site: "b.gov",
        kind: "leave-alone",
        value: "/old\x1b]0;pwned\x07",
        reason: "the owner asked",
        at: f.clock.now(),
        by: "someone",
      });
      const listed = await runMain(["site", "b.gov", "--data", f.dir]);
      expect(listed.stdout).toContain("b.gov: /old\\u001b]0;pwned\\u0007 left alone");
      expect(listed.stdout).not.toMatch(/[\x07\x1b]/);
      const cleared = await runMain([
        "site",
        "b.gov",
        "--clear-leave-alone",
        "/old\x1b]0;pwned\x07",
        "--data",
        f.dir,
      ]);
      expect(cleared.code, cleared.stderr).toBe(0);
      expect(cleared.stdout).not.toMatch(/[\x07\x1b]/);
      // Percent-encoded, as robots.txt writes it, and non-ASCII as typed: both still taken.
      const ok = await runMain(["site", "a.gov", "--leave-alone", "/p%C3%A9/", "/pé/x", ...args]);
      expect(ok.code, ok.stderr).toBe(0);
    }
  });
});
