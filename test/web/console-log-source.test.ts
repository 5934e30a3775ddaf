import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { runMain } from "../cli/cli-capture.js";
import { entry } from "../store/entries.js";
import { consoleFixture } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * A mistyped source id must not read as "we asked nothing for it": `nor log --source nosuch`
 * refuses it (exit 2, "this store has no source"), and the console's log search says the same,
 * by the same store lookup, on the page and in the JSON (400).
 */
describe("console request-log search: a source the store does not have", () => {
  let f: Fixture;
  let b: ReturnType<Fixture["browser"]>;

  beforeAll(async () => {
    f = await consoleFixture();
    await new SqlRequestLog(f.db).appendMany([entry({ source: "oh-example-agendas" })]);
    b = f.browser();
    await b.signIn();
  }, 120_000);
  afterAll(async () => f?.close());

  it("P27: is refused with the message `nor log` gives, on the page and in the JSON (400)", async () => {
    // The CLI beside it, on the same store when it is the SQLite file (the fixture is a
    // PostgreSQL database when the tests run with one).
    if (existsSync(join(f.dir, "nor.db"))) {
      const cli = await runMain(["log", "--data", f.dir, "--source", "nosuch"]);
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain('this store has no source "nosuch"');
    }

    const q = new URLSearchParams({ source: "nosuch" });
    const page = await b.get(`/console/log?${q}`);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain("this store has no source &quot;nosuch&quot;");
    expect(html).not.toContain("match.");
    expect(html).not.toContain("Download this search as JSON");
    expect(html).toContain('name="source" value="nosuch"');

    const json = await b.get(`/console/log.json?${q}`);
    expect(json.status).toBe(400);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await json.json()) as { error: string };
    expect(body.error).toContain('this store has no source "nosuch"');
  });

  it("a source with attempts in the log is searched as before", async () => {
    const q = new URLSearchParams({ source: "oh-example-agendas" });
    const page = await b.get(`/console/log?${q}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("1 attempt matches.");
    const json = await b.get(`/console/log.json?${q}`);
    expect(json.status).toBe(200);
    expect(((await json.json()) as { count: number }).count).toBe(1);
  });
});
