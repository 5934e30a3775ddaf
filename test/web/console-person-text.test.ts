import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REASON_MAX } from "../../src/policy/person-text.js";
import { marksOf } from "../../src/store/read/console.js";
import { setSiteRule, siteRules } from "../../src/store/site-rules.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * The console's mark and site forms take a reason by the same rule as `nor mark --reason` and
 * `nor site --reason`: one line, no control or formatting character, at most 500 characters;
 * else 400 with the form and why, and nothing is recorded (it would be published on
 * /sources/<id> and /api/sources/<id>).
 */
const EVIL = "evil\tTAB\nnewline\u001b]0;pwned\u0007\u001b[2J";

describe("console: a reason is one line of text", () => {
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

  const message = async (res: Response) => load(await res.text())("main").text();

  it("the mark form refuses a reason with control characters or too long (400), records nothing", async () => {
    const csrf = await b.token("/console/sources/oh-a-agendas");
    const page = load(await (await b.get("/console/sources/oh-a-agendas")).text());
    expect(page('input[name="reason"]').attr("maxlength")).toBe(String(REASON_MAX));
    const mark = (reason: string) =>
      b.post("/console/sources/oh-a-agendas/mark", { csrf, action: "not-read", reason });
    let res = await mark(EVIL);
    expect(res.status).toBe(400);
    expect(await message(res)).toContain(
      "The reason holds a control or formatting character (U+0009 at character 5)",
    );
    res = await mark("x".repeat(REASON_MAX + 1));
    expect(res.status).toBe(400);
    expect(await message(res)).toContain("The reason has 501 characters; give at most 500");
    expect(await marksOf(f.db, "oh-a-agendas")).toEqual([]);
    res = await mark(`  ${"x".repeat(REASON_MAX)}  `);
    expect(res.status).toBe(303);
  });

  it("the site form refuses the same (400), records nothing", async () => {
    const csrf = await b.token("/console/sites");
    const add = (reason: string) =>
      b.post("/console/sites/rules", { csrf, site: "a.gov", kind: "not-read", value: "", reason });
    let res = await add(EVIL);
    expect(res.status).toBe(400);
    expect(await message(res)).toContain("The reason holds a control or formatting character");
    res = await add("r".repeat(REASON_MAX + 1));
    expect(res.status).toBe(400);
    expect(await message(res)).toContain("The reason has 501 characters");
    expect(await siteRules(f.db)).toEqual([]);
  });

  it("a reason a reader would not see (a zero-width space, a blank Braille pattern) is no reason: the forms say one is needed, record nothing", async () => {
    const csrf = await b.token("/console/sources/oh-a-agendas");
    for (const reason of ["\u200b", "\u2800 \u2800"]) {
      const res = await b.post("/console/sources/oh-a-agendas/mark", {
        csrf,
        action: "not-read",
        reason,
      });
      expect(res.status).toBe(400);
      const text = await message(res);
      expect(text).toContain("A reason is required to mark a source not read (P24).");
      expect(text).not.toContain("The reason the reason");
      const site = await b.post("/console/sites/rules", {
        csrf: await b.token("/console/sites"),
        site: "a.gov",
        kind: "not-read",
        value: "",
        reason,
      });
      expect(site.status).toBe(400);
      expect(await message(site)).toContain("A site owner's request needs a reason");
    }
    expect(await marksOf(f.db, "oh-a-agendas")).toEqual([]);
    expect(await siteRules(f.db)).toEqual([]);
    // Unseen characters at the ends of a reason are not kept.
    const res = await b.post("/console/sources/oh-a-agendas/mark", {
      csrf,
      action: "not-read",
      reason: "\u200bclerk asked\u200b",
    });
    expect(res.status).toBe(303);
    expect((await marksOf(f.db, "oh-a-agendas")).map((m) => m.reason)).toEqual(["clerk asked"]);
  });

  it("P18: a path left alone that was stored with a space at its end (before such paths were refused) is cleared from its row", async () => {
    await setSiteRule(f.db, {
      site: "a.gov",
      kind: "leave-alone",
      value: "/old path ",
      reason: "e-mail of Oct 1",
      at: f.clock.now(),
      by: "clerk",
    });
    const csrf = await b.token("/console/sites");
    const page = load(await (await b.get("/console/sites")).text());
    const hidden = page('form[action="/console/sites/clear"] input[name="value"]').attr("value");
    expect(hidden).toBe("/old path ");
    const res = await b.post("/console/sites/clear", {
      csrf,
      site: "a.gov",
      kind: "leave-alone",
      value: hidden ?? "",
    });
    expect(res.status).toBe(303);
    expect(await siteRules(f.db)).toEqual([]);
  });
});
