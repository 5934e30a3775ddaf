import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { randomIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import type { FetchOutcome } from "../../src/net/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { siteRules } from "../../src/store/site-rules.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { html, robots } from "../fleet/routes.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * What a site owner asks by e-mail (a slower pace, paths left alone, the whole site not read),
 * set and cleared in the console's Sites page, signed in and CSRF-safe like every console
 * form; the rules it keeps are the ones `siteRules()` returns and the journal admits by.
 */
describe("console: site owners' requests", () => {
  let f: Fixture;
  let b: Browser;
  let token: string;
  let fleet: Fleet | undefined;

  beforeEach(async () => {
    f = await consoleFixture();
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
    token = await b.token("/console/sites");
  });
  afterEach(async () => {
    await fleet?.close();
    fleet = undefined;
    await f?.close();
  });

  const add = (fields: Record<string, string>) =>
    b.post("/console/sites/rules", { csrf: token, ...fields });
  const clear = (fields: Record<string, string>) =>
    b.post("/console/sites/clear", { csrf: token, ...fields });
  const sitesPage = async () => {
    const res = await b.get("/console/sites");
    expect(res.status).toBe(200);
    return load(await res.text());
  };
  const rulesNow = async () =>
    (await siteRules(f.db)).map((r) => [r.site, r.kind, r.value ?? null, r.reason, r.by]);

  it("P10, P18, P26: a gap, a path left alone and not read are added with their reason, listed with reason, date and who, and cleared one by one", async () => {
    const at = new Date(f.clock.now()).toISOString();
    let res = await add({ site: "www.a.gov", kind: "gap", value: "30s", reason: "clerk: slower" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/sites#site-a.gov");
    await f.clock.advance(1000);
    res = await add({
      site: "https://a.gov/permits/list",
      kind: "leave-alone",
      value: "/permits/",
      reason: "e-mail of Nov 5",
    });
    expect(res.status).toBe(303);
    // Two prefixes in the same millisecond are two rules.
    res = await add({ site: "a.gov", kind: "leave-alone", value: "/private/", reason: "same" });
    expect(res.status).toBe(303);
    res = await add({ site: "b.gov", kind: "not-read", value: "", reason: "owner by phone" });
    expect(res.status).toBe(303);

    // What the console set is what the fetcher's journal reads: siteRules() in the store.
    expect(await rulesNow()).toEqual([
      ["a.gov", "gap", "30000", "clerk: slower", "operator"],
      ["a.gov", "leave-alone", "/permits/", "e-mail of Nov 5", "operator"],
      ["a.gov", "leave-alone", "/private/", "same", "operator"],
      ["b.gov", "not-read", null, "owner by phone", "operator"],
    ]);
    expect((await siteRules(f.db, "a.gov"))[0]?.at).toBe(Date.parse(at));

    const $ = await sitesPage();
    expect($("#site-count").text()).toBe("2");
    const a = $("section[data-site='a.gov']");
    const rows = a.find("tr[data-kind]");
    expect(rows.length).toBe(3);
    const cells = (i: number) =>
      rows
        .eq(i)
        .find("td")
        .map((_j, td) => $(td).text().trim())
        .get();
    expect(cells(0).slice(0, 3)).toEqual([
      "gap",
      "at least 30 s between requests",
      "clerk: slower",
    ]);
    expect(cells(0)[3]).toMatch(/Nov 5, 2026|2026-11-05|11\/5\/2026/);
    expect(cells(0)[4]).toBe("operator");
    expect(cells(1).slice(0, 3)).toEqual([
      "leave-alone",
      "/permits/ left alone",
      "e-mail of Nov 5",
    ]);
    expect(a.text()).toContain("1 source of the catalog on this site");
    const bRow = $("section[data-site='b.gov'] tr[data-kind='not-read'] td");
    expect(bRow.eq(1).text()).toBe("the whole site not read");
    expect(bRow.eq(2).text()).toBe("owner by phone");
    // Each site has its own forms for the three requests, each requiring a reason.
    expect(
      a.find("form[action='/console/sites/rules'] input[name='reason'][required]").length,
    ).toBe(3);

    // Clear each: the leave-alone one prefix at a time, the others by kind.
    expect((await clear({ site: "a.gov", kind: "leave-alone", value: "/permits/" })).status).toBe(
      303,
    );
    expect((await rulesNow()).map((r) => r[2])).toEqual(["30000", "/private/", null]);
    expect((await clear({ site: "a.gov", kind: "gap" })).status).toBe(303);
    expect((await clear({ site: "a.gov", kind: "leave-alone", value: "/private/" })).status).toBe(
      303,
    );
    expect((await clear({ site: "b.gov", kind: "not-read" })).status).toBe(303);
    expect(await rulesNow()).toEqual([]);
    // Cleared rows are kept with who and when, not deleted.
    const kept = await f.db.selectFrom("site_rules").selectAll().execute();
    expect(kept).toHaveLength(4);
    for (const r of kept) expect(r.cleared_by).toBe("operator");
    // Clearing what is not in force says so and changes nothing.
    const again = await clear({ site: "b.gov", kind: "not-read" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("Nothing of that kind is in force for b.gov");
    expect((await sitesPage())("#site-count").text()).toBe("0");
  });

  it("P10: a gap under the 2 s floor is refused with a clear message and nothing is stored", async () => {
    for (const value of ["1s", "1.9s", "500ms", "1999ms"]) {
      const res = await add({ site: "a.gov", kind: "gap", value, reason: "faster?" });
      expect(res.status).toBe(400);
      const text = load(await res.text())("p.msg").text();
      expect(text).toContain(`A gap of ${value} is under the 2 s floor (P10)`);
    }
    // No time at all: the same floor named, not "more than 0".
    const zero = await add({ site: "a.gov", kind: "gap", value: "0s", reason: "x" });
    expect(zero.status).toBe(400);
    const zeroText = load(await zero.text())("p.msg").text();
    expect(zeroText).toContain("at least the 2 s floor (P10)");
    expect(zeroText).not.toContain("more than 0");
    const notDuration = await add({ site: "a.gov", kind: "gap", value: "fast", reason: "x" });
    expect(notDuration.status).toBe(400);
    expect(load(await notDuration.text())("p.msg").text()).toContain('"fast" is not a duration');
    expect(await rulesNow()).toEqual([]);
    // The floor itself is accepted.
    expect((await add({ site: "a.gov", kind: "gap", value: "2s", reason: "ok" })).status).toBe(303);
    expect(await rulesNow()).toEqual([["a.gov", "gap", "2000", "ok", "operator"]]);
  });

  it("P18, P24: a path that does not start with /, a request without a reason, or no site is refused and nothing is stored", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ site: "a.gov", kind: "leave-alone", value: "permits/", reason: "r" }, "must start with /"],
      [{ site: "a.gov", kind: "leave-alone", value: "", reason: "r" }, "must start with /"],
      [{ site: "a.gov", kind: "not-read", reason: "   " }, "needs a reason"],
      [{ site: "a.gov", kind: "gap", value: "30s" }, "needs a reason"],
      [{ site: "", kind: "not-read", reason: "r" }, "is not a site, host or URL"],
      [{ site: "not a host", kind: "not-read", reason: "r" }, "is not a site, host or URL"],
      [{ site: "gov", kind: "not-read", reason: "r" }, "gov is a public suffix"],
      [{ site: "example..gov", kind: "gap", value: "30s", reason: "r" }, "has an empty label"],
      [{ site: "a.gov", kind: "slower", reason: "r" }, "Choose a gap"],
    ];
    for (const [fields, message] of cases) {
      const res = await add(fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(load(await res.text())("p.msg").text()).toContain(message);
    }
    expect(await f.db.selectFrom("site_rules").selectAll().execute()).toEqual([]);
  });

  const csrfCases: [string, (p: string, fields: Record<string, string>) => Promise<Response>][] = [
    ["without the token", (p, fields) => b.post(p, fields)],
    ["with a wrong token", (p, fields) => b.post(p, { ...fields, csrf: `${token.slice(0, -1)}x` })],
    [
      "from another Origin",
      (p, fields) => b.post(p, { ...fields, csrf: token }, { origin: "https://evil.example" }),
    ],
    ["with no Origin", (p, fields) => b.post(p, { ...fields, csrf: token }, { origin: null })],
    [
      "as JSON instead of a form",
      (p, fields) => b.post(p, { ...fields, csrf: token }, { contentType: "application/json" }),
    ],
  ];
  for (const [how, send] of csrfCases) {
    it(`P24: adding or clearing a site owner's request ${how} is refused (403) and changes nothing`, async () => {
      expect((await add({ site: "a.gov", kind: "gap", value: "9s", reason: "kept" })).status).toBe(
        303,
      );
      const before = await f.db.selectFrom("site_rules").selectAll().execute();
      for (const [path, fields] of [
        ["/console/sites/rules", { site: "a.gov", kind: "not-read", reason: "forged" }],
        ["/console/sites/clear", { site: "a.gov", kind: "gap" }],
      ] as const) {
        const res = await send(path, fields);
        expect(res.status).toBe(403);
      }
      expect(await f.db.selectFrom("site_rules").selectAll().execute()).toEqual(before);
    });
  }

  it("signed out, the Sites page sends to sign in and its POSTs are refused", async () => {
    const anon = f.browser();
    const page = await anon.get("/console/sites");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/console/sign-in");
    const res = await anon.post("/console/sites/rules", {
      site: "a.gov",
      kind: "not-read",
      reason: "x",
    });
    expect(res.status).toBe(403);
    expect(await rulesNow()).toEqual([]);
  });

  it("P21: the journal's state of each site is shown: closed tonight with the reason, a Retry-After hold", async () => {
    const now = f.clock.now();
    await f.db
      .insertInto("site_state")
      .values([
        {
          site: "c.gov",
          last_end_at: new Date(now - 60_000).toISOString(),
          updated_at: new Date(now).toISOString(),
          closed_night: "2026-11-05",
          closed_reason: "403 challenge page (cloudflare)",
        },
        {
          site: "d.gov",
          last_end_at: new Date(now - 1000).toISOString(),
          updated_at: new Date(now).toISOString(),
          not_before: new Date(now + 3_600_000).toISOString(),
        },
        {
          // Closed on an earlier night and no hold: nothing to show.
          site: "e.gov",
          last_end_at: new Date(now - 86_400_000).toISOString(),
          updated_at: new Date(now).toISOString(),
          closed_night: "2026-11-01",
          closed_reason: "old no",
        },
      ])
      .execute();
    await add({ site: "e.gov", kind: "gap", value: "10s", reason: "slow" });
    const $ = await sitesPage();
    expect($("#site-count").text()).toBe("3");
    const c = $("section[data-site='c.gov'] .journal").text();
    expect(c).toContain("Said no on the night of 2026-11-05 (tonight");
    expect(c).toContain("403 challenge page (cloudflare)");
    const d = $("section[data-site='d.gov'] .journal").text();
    expect(d).toContain(
      "a Retry-After, or the wait before a retry after a 429 or 5xx; no request before then.",
    );
    // A site listed for its owner's rule shows its older no, not as tonight's.
    const e = $("section[data-site='e.gov'] .journal").text();
    expect(e).toContain("Said no on the night of 2026-11-01: old no");
    expect(e).not.toContain("tonight");
    // Once the hold has passed, d.gov is no longer held.
    await f.clock.advance(3_600_001);
    expect((await sitesPage())("section[data-site='d.gov']").length).toBe(0);
  });

  /** Runs one fetch through the journal over the console's store, letting virtual time pass. */
  async function fetchOnce(url: string): Promise<FetchOutcome> {
    const fetcher = createFetcher({
      clock: f.clock,
      ids: randomIds,
      journal: new SqlJournal(f.db),
      robotsCache: new SqlRobotsCache(f.db),
      transportOptions: { allowPrivateAddresses: true },
      night: "2026-11-05",
    });
    try {
      let done = false;
      const pending = fetcher.fetch({ url, purpose: "page" }).finally(() => {
        done = true;
      });
      for (let i = 0; i < 2000 && !done; i++) {
        if (f.clock.pending > 0) await f.clock.step();
        else await new Promise((r) => setTimeout(r, 2));
      }
      return await pending;
    } finally {
      await fetcher.close();
    }
  }

  it("P10, P18, P26: the checker honours what was set in the console, from its next request on (the server sees it)", async () => {
    fleet = await startFleet({ now: () => f.clock.now() });
    const s = await fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    for (const p of ["/a", "/b", "/private/x", "/c"]) s.route(p, html(`page ${p}`));
    const pages = () => s.requests.filter((r) => r.path !== "/robots.txt");

    // A 3 s gap (over the 2 s floor) set in the console spaces the next requests.
    expect((await add({ site: s.host, kind: "gap", value: "3s", reason: "slower" })).status).toBe(
      303,
    );
    expect((await fetchOnce(s.url("/a"))).kind).toBe("ok");
    expect((await fetchOnce(s.url("/b"))).kind).toBe("ok");
    expect(gaps(s.requests).length).toBe(2);
    for (const g of gaps(s.requests)) expect(g).toBeGreaterThanOrEqual(3000);

    // A path left alone is never asked, like a robots.txt Disallow.
    expect(
      (await add({ site: s.url("/"), kind: "leave-alone", value: "/private/", reason: "r" }))
        .status,
    ).toBe(303);
    const alone = await fetchOnce(s.url("/private/x"));
    expect(alone.kind).toBe("disallowed");
    expect(pages().map((r) => r.path)).toEqual(["/a", "/b"]);

    // Not read: nothing more goes to the site; cleared: it is read again.
    expect((await add({ site: s.host, kind: "not-read", reason: "owner asked" })).status).toBe(303);
    const closed = await fetchOnce(s.url("/c"));
    expect(closed.kind).toBe("site-closed");
    expect(pages().map((r) => r.path)).toEqual(["/a", "/b"]);
    expect((await clear({ site: s.host, kind: "not-read" })).status).toBe(303);
    expect((await fetchOnce(s.url("/c"))).kind).toBe("ok");
    expect(pages().map((r) => r.path)).toEqual(["/a", "/b", "/c"]);
  });

  it("P26: a source on a site whose owner asked not to be read says so on its public page, and its link stays", async () => {
    const catalog = parseCatalog(
      `
governments:
  - { id: village-of-a, name: Village of A, kind: village, county: Franklin }
sources:
  - { id: a-agendas, government: village-of-a, records: agendas, access: feed, url: "https://www.a.gov/agendas.rss", name: Council agendas }
  - { id: a-other, government: village-of-a, records: minutes, access: feed, url: "https://other.example/min.rss" }
`,
      "test/web/sites-catalog.yaml",
    );
    await importCatalog(
      f.db,
      catalog,
      {
        governments: new Map([["village-of-a", "catalog.yaml"]]),
        sources: new Map([
          ["a-agendas", "catalog.yaml"],
          ["a-other", "catalog.yaml"],
        ]),
      },
      f.clock.now() - 86_400_000,
    );
    const publicPage = async (id: string) => {
      const res = await f.app.request(`/sources/${id}`);
      expect(res.status).toBe(200);
      return load(await res.text());
    };
    expect((await publicPage("a-agendas"))(".read-status").text()).toContain("read");
    expect((await publicPage("a-agendas"))(".site-owner").length).toBe(0);

    expect((await add({ site: "a.gov", kind: "not-read", reason: "clerk, Nov 5" })).status).toBe(
      303,
    );
    const $ = await publicPage("a-agendas");
    expect($(".read-status .status").text()).toBe("not read");
    expect($(".site-owner").text()).toMatch(
      /The owner of its site, a\.gov, asked that the site\s+not be read/,
    );
    expect($(".read-status .reason").text()).toBe(
      "the site's owner asked not to be read (clerk, Nov 5)",
    );
    expect($(".public-link a").attr("href")).toBe("https://www.a.gov/agendas.rss");
    // Another site's source is untouched; the government page lists both, one not read.
    expect((await publicPage("a-other"))(".site-owner").length).toBe(0);
    const gov = load(await (await f.app.request("/governments/village-of-a")).text());
    expect(gov.text()).toContain("the site's owner asked not to be read (clerk, Nov 5)");
    // The API says the same.
    const api = (await (await f.app.request("/api/sources/a-agendas")).json()) as {
      status: { reading: boolean; reason: string | null };
    };
    expect(api.status).toMatchObject({
      reading: false,
      reason: "the site's owner asked not to be read (clerk, Nov 5)",
    });

    expect((await clear({ site: "a.gov", kind: "not-read" })).status).toBe(303);
    expect((await publicPage("a-agendas"))(".site-owner").length).toBe(0);
  });
});
