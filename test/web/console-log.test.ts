import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { toJson } from "../../src/store/request-log-view.js";
import { createApp } from "../../src/web/app.js";
import { PAGE_CAP } from "../../src/web/console/log-search.js";
import { runMain } from "../cli/cli-capture.js";
import { background, nearMisses, wanted } from "../cli/log-fixture.js";
import { planOf, recording, usesIndex } from "../store/query-plan.js";
import { Browser, consoleFixture, PASSWORD } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/** The URLs in the results table, in order (the URL cell is the only <code> on the page). */
const urls = (html: string) =>
  [...html.matchAll(/<td><code>([^<]*)<\/code><\/td>/g)].map((m) => m[1]);

/**
 * P27: "what did your checker request from us at 03:12 on Nov 5?" asked through the console
 * of a log of 100,000 attempts (test/cli/log-fixture.ts, the same log `nor log` is tested on).
 */
describe("console request-log search", () => {
  let f: Fixture;
  let b: Browser;

  beforeAll(async () => {
    f = await consoleFixture();
    await new SqlRequestLog(f.db).appendMany([...background(), ...wanted, ...nearMisses]);
    b = f.browser();
    await b.signIn();
  }, 120_000);
  afterAll(async () => f?.close());

  it("P27: finds the one request at 03:12 on Nov 5 (New York time), with its retry, from a pasted URL, through the site-and-time index", async () => {
    const q = new URLSearchParams({
      since: "2026-11-05 03:12",
      until: "2026-11-05 03:12",
      site: "https://www.example.gov/bids?from=their-log",
    });
    // The same console over the same store, its queries recorded: why the search stays fast
    // whatever the log's size is the plan of the query it sends (no timing: shared machine).
    const { db, recorder } = recording(f.db);
    const app = createApp({ db, now: () => f.clock.now(), console: { password: PASSWORD } });
    const browser = new Browser(app);
    browser.cookies = new Map(b.cookies);
    const res = await browser.get(`/console/log?${q}`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(urls(html)).toEqual(["https://example.gov/bids", "https://example.gov/bids"]);
    expect(html).toContain("2 attempts match.");
    expect(html).toContain("2026-11-05 03:12:04.000 -05:00");
    expect(html).toContain("503 retry");
    expect(html).toContain("200 ok #2");
    // The help names the form's fields, not the CLI's flags.
    expect(html).toContain("Since takes the start of the period written, Until its end");
    expect(html).not.toContain("--since");
    const searches = recorder.queries.filter((x) =>
      JSON.stringify(x.node).includes('"request_log"'),
    );
    expect(searches).toHaveLength(1);
    const plan = await planOf(f.db, f.store.dialect, searches[0]!);
    expect(usesIndex(plan, "request_log_site_started_at"), plan).toBe(true);
  });

  it("P27: the 03:11–03:13 window on example.gov holds exactly the wanted attempts, none of the near misses", async () => {
    const q = new URLSearchParams({
      since: "2026-11-05T03:11",
      until: "2026-11-05T03:13",
      site: "www.example.gov",
    });
    const html = await (await b.get(`/console/log?${q}`)).text();
    expect(urls(html)).toEqual(wanted.map((w) => w.url));
  });

  it("P27: a zone written explicitly is read as written (08:12Z is 03:12 in New York)", async () => {
    const q = new URLSearchParams({
      since: "2026-11-05T08:12Z",
      until: "2026-11-05T08:12Z",
      url: "BIDS",
    });
    const html = await (await b.get(`/console/log?${q}`)).text();
    // URL contains is case-insensitive; other.gov's /bids at 03:12:04 is there without a site filter.
    expect(urls(html)).toEqual([
      "https://example.gov/bids",
      "https://other.gov/bids",
      "https://example.gov/bids",
    ]);
  });

  it("P27: the JSON download is the same search, every field `nor log --jsonl` gives", async () => {
    const q = new URLSearchParams({
      since: "2026-11-05 03:11",
      until: "2026-11-05 03:13",
      site: "example.gov",
    });
    const res = await b.get(`/console/log.json?${q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("attachment");
    const body = (await res.json()) as { count: number; truncated: boolean; attempts: unknown[] };
    expect(body.count).toBe(wanted.length);
    expect(body.truncated).toBe(false);
    expect(body.attempts).toEqual(wanted.map((w) => JSON.parse(JSON.stringify(toJson(w)))));
  });

  it("caps the table with a note when more attempts match than a page shows", async () => {
    const html = await (await b.get("/console/log?since=2026-11-04")).text();
    expect(html).toContain(
      `More than ${PAGE_CAP} attempts match; the first ${PAGE_CAP} are shown.`,
    );
    expect(urls(html)).toHaveLength(PAGE_CAP);
  });

  it("a time it cannot read, or a window the wrong way round, is a message (400), not a crash", async () => {
    const bad = await b.get("/console/log?since=yesterday");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Since: cannot read &quot;yesterday&quot; as a time");
    const back = await b.get("/console/log?since=2026-11-06&until=2026-11-05");
    expect(back.status).toBe(400);
    expect(await back.text()).toContain("is not before Until");
  });

  // A typo must never read as "we asked you nothing": `gov` would otherwise be searched as a
  // site of its own and match no attempt, while `nor log --site gov` refuses it (exit 2).
  it("P27: a Site that names no site (a bare suffix, an empty label, a hyphen at a label's end) is refused with the reason `nor log` gives, on the page and in the JSON (400)", async () => {
    for (const [site, reason] of [
      ["gov", "gov is a public suffix, shared by every site under it, not one site"],
      ["example..gov", "example..gov has an empty label"],
      ["-bad-.gov", "-bad-.gov has a label that starts or ends with a hyphen"],
      ["https://oh.us/bids", "oh.us is a public suffix"],
    ] as const) {
      const cli = await runMain(["log", "--data", f.dir, "--site", site]);
      expect(cli.code, site).toBe(2);
      expect(cli.stderr, site).toContain(reason);

      const q = new URLSearchParams({ since: "2026-12-04", site });
      const res = await b.get(`/console/log?${q}`);
      expect(res.status, site).toBe(400);
      const html = await res.text();
      expect(html, site).toContain(reason);
      expect(html, site).not.toContain("match.");
      expect(html, site).not.toContain("Download this search as JSON");
      // The form again, as it was filled, to correct.
      expect(html, site).toContain(`name="site" value="${site}"`);
      expect(html, site).toContain('name="since" value="2026-12-04"');

      const json = await b.get(`/console/log.json?${q}`);
      expect(json.status, site).toBe(400);
      expect(json.headers.get("content-type"), site).toMatch(/^application\/json/);
      const body = (await json.json()) as { error: string };
      expect(body.error, site).toContain(reason);
      expect(body.error, site).toContain(`Site: "${site}"`);
    }
  });

  // The URL parser reads 127.0.0.054 as octal (127.0.0.44): searched, it would show another
  // site's attempts than the 127.0.0.54 a person means. The console refuses it as `nor log` does.
  it("P27: a Site typed as an IPv4 address with a leading zero (127.0.0.054) is refused with the reason `nor log` gives, on the page and in the JSON (400)", async () => {
    const site = "127.0.0.054";
    const reason =
      "127.0.0.054 is an IPv4 address with a part written with a leading zero (054), which is ambiguous: the URL parser reads it as octal (127.0.0.44), a person usually means decimal (127.0.0.54)";
    const cli = await runMain(["log", "--data", f.dir, "--site", site]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(reason);

    const q = new URLSearchParams({ since: "2026-12-04", site });
    const res = await b.get(`/console/log?${q}`);
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(reason);
    expect(html).not.toContain("match.");
    expect(html).toContain(`name="site" value="${site}"`);

    const json = await b.get(`/console/log.json?${q}`);
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toContain(`Site: "${site}"`);
  });

  it("P27: a Site that names one is still reduced to its site: an IP address, a host under a suffix of two labels", async () => {
    for (const site of ["127.0.0.1", "https://www.example.gov:8443/x", "city.oh.us"]) {
      const res = await b.get(
        `/console/log.json?${new URLSearchParams({ since: "2026-12-04", site })}`,
      );
      expect(res.status, site).toBe(200);
      expect(((await res.json()) as { count: number }).count, site).toBe(0);
    }
  });
});
