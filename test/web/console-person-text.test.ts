import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REASON_MAX } from "../../src/policy/person-text.js";
import { marksOf } from "../../src/store/read/console.js";
import { siteRules } from "../../src/store/site-rules.js";
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
});
