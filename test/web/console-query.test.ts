import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTCOME_KINDS } from "../../src/night/types.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * The console's query strings follow docs/api.md's rule, as the public routes do: a parameter
 * given twice, one the page does not read, or a value it does not know is a 400 that names the
 * parameter, never cut to its first value, silently ignored, or answered with nothing found.
 */
describe("console query parameters", () => {
  let f: Fixture;
  let b: Browser;

  beforeAll(async () => {
    f = await consoleFixture();
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
  });
  afterAll(async () => f?.close());

  it("P27: the log search refuses a repeated parameter (400, naming it), never searching by its first value", async () => {
    for (const q of [
      "source=oh-a-agendas&source=oh-b-bids",
      "since=2026-11-04&since=2026-11-05",
      "site=a.gov&until=2026-11-06&site=b.gov",
    ]) {
      const name = q.split("=")[0];
      const json = await b.get(`/console/log.json?${q}`);
      expect(json.status, q).toBe(400);
      expect(json.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await json.json()).toEqual({
        error: `The query parameter "${name}" is given more than once; give it once.`,
      });
      const page = await b.get(`/console/log?${q}`);
      expect(page.status, q).toBe(400);
      const html = await page.text();
      expect(html).toContain(`The query parameter &quot;${name}&quot; is given more than once`);
      expect(html).not.toContain("Attempts found");
    }
  });

  it("P27: the log search refuses a parameter it does not read (400, naming it)", async () => {
    const json = await b.get("/console/log.json?since=2026-11-05&sorce=oh-a-agendas");
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe(
      'Unknown query parameter "sorce"; this address reads since, until, site, url, source.',
    );
    const page = await b.get("/console/log?since=2026-11-05&sorce=oh-a-agendas");
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("Unknown query parameter &quot;sorce&quot;");
  });

  it("P24: the sources page refuses an outcome that is none (400, naming the parameter and the outcomes), never answering 0 sources", async () => {
    const res = await b.get("/console/sources?outcome=bogus");
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(
      `The query parameter &quot;outcome&quot; is &quot;bogus&quot;, which is not an outcome. Use one of: ${OUTCOME_KINDS.join(", ")}; or leave it empty for any.`,
    );
    expect(html).not.toContain("0 sources.");
    // An unknown show, a repeated one, one the page does not read: the same.
    const show = await b.get("/console/sources?show=everything");
    expect(show.status).toBe(400);
    expect(await show.text()).toContain("The query parameter &quot;show&quot; is");
    const twice = await b.get("/console/sources?outcome=refused&outcome=ok");
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain(
      "The query parameter &quot;outcome&quot; is given more than once",
    );
    expect((await b.get("/console/sources?county=Franklin")).status).toBe(400);
    // Known values, and the form's empty fields, still filter.
    const ok = await b.get("/console/sources?show=all&outcome=refused");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("1 source.");
    const empty = await b.get("/console/sources?show=&outcome=");
    expect(empty.status).toBe(200);
    expect(await empty.text()).toContain("3 sources.");
  });

  it("the console's other pages read no parameter: one given is a 400 naming it", async () => {
    for (const path of [
      "/console",
      "/console/nights",
      "/console/nights/2026-11-05",
      "/console/flags",
      "/console/sites",
      "/console/sources/oh-a-agendas",
    ]) {
      expect((await b.get(path)).status, path).toBe(200);
      const res = await b.get(`${path}?x=1`);
      expect(res.status, path).toBe(400);
      expect(await res.text()).toContain("Unknown query parameter &quot;x&quot;");
    }
    // Signed out, the wall comes first: sent to sign in, whose page reads none either.
    const stranger = f.browser();
    expect((await stranger.get("/console/flags?x=1")).status).toBe(303);
    expect((await stranger.get("/console/sign-in?x=1")).status).toBe(400);
    // A route that answers no GET is still not found.
    expect((await b.get("/console/flags/clear?id=x")).status).toBe(404);
  });
});
