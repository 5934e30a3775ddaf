import { load } from "cheerio";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { wordForms } from "../../src/store/read/search.js";
import { createApp } from "../../src/web/app.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * Finding and following: bids in a county in two clicks, ranked and paged search (FTS5 here;
 * test/web/postgres.test.ts runs the same on PostgreSQL), windows of what is new with honest
 * wording, iCalendar of upcoming meetings, bulk downloads, and OpenAPI checked against real
 * answers.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

const page = async (path: string, status = 200) => {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  return load(await res.text());
};

describe("finding", () => {
  it("bids in Franklin County in two clicks: home → county → Bids", async () => {
    const home = await page("/");
    const county = home("ul.counties a").filter((_i, a) => home(a).text() === "Franklin");
    const first = county.attr("href") ?? "";
    expect(first).toBe("/counties/Franklin");
    const c = await page(first);
    expect(c("h1").text()).toBe("Franklin County");
    // Typed as its heading writes it: sent to the county's own address; the API takes it too.
    for (const typed of ["Franklin%20County", "franklin%20county"]) {
      const res = await f.app.request(`/counties/${typed}`);
      expect(res.status, typed).toBe(301);
      expect(res.headers.get("location"), typed).toBe("/counties/Franklin");
    }
    expect((await f.app.request("/api/counties/Franklin%20County")).status).toBe(200);
    const bids = c("#gov-village-of-test a[data-records=bids]");
    expect(bids.text()).toBe("Bids");
    const s = await page(bids.attr("href") ?? "");
    expect(s(".public-link a").attr("href")).toBe("https://test.example/bids");
    // The county's feeds and calendar are linked from its page.
    expect(c("a[href='/meetings.ics?county=Franklin']").length).toBe(1);
    expect(c("link[rel=alternate][type='application/atom+xml']").attr("href")).toBe(
      "/new.atom?county=Franklin",
    );
  });

  it("search finds governments, sources and record titles, ranked, paged, prefix of the last word", async () => {
    const $ = await page("/search?q=Recor");
    // Seven titles say "Record N"; the eighth ("<img …>") does not.
    expect($("#record-total").text()).toContain("7 records match");
    const api = (await (await f.app.request("/api/search?q=village")).json()) as {
      governments: { id: string }[];
      records: unknown[];
    };
    expect(api.governments.map((g) => g.id)).toEqual(["village-of-test"]);
    const src = (await (await f.app.request("/api/search?q=council agendas")).json()) as {
      sources: { id: string }[];
    };
    expect(src.sources.map((s) => s.id)).toEqual(["test-agendas"]);
    // Every word must match; search syntax typed in is only separators.
    const one = (await (
      await f.app.request(`/api/search?q=${encodeURIComponent('record "22" -(')}`)
    ).json()) as {
      records: { recordId: string }[];
      recordTotal: number;
    };
    expect(one.records.map((r) => r.recordId)).toEqual(["https://test.example/r/22"]);
    // Filters narrow a search; ranking puts the closer match first.
    const franklin = (await (
      await f.app.request("/api/search?q=record&county=Franklin&records=bids")
    ).json()) as {
      records: { recordId: string }[];
    };
    expect(franklin.records.map((r) => r.recordId)).toEqual([
      "https://test.example/r/31",
      "https://test.example/r/30",
    ]);
    // Paging: 25 more matching records make two pages of 20.
    await f.store.db
      .insertInto("records")
      .values(
        Array.from({ length: 25 }, (_v, i) => ({
          source_id: "akron-minutes",
          record_id: `page-${i}`,
          title: `Zoning appeal ${i}`,
          date: null,
          url: null,
          kind: null,
          first_seen_night: "2026-11-03",
          first_seen_at: new Date(Date.parse("2026-11-04T05:00:00.000Z") + i).toISOString(),
        })),
      )
      .execute();
    try {
      const p1 = await page("/search?q=zoning");
      expect(p1("table.new tbody tr").length).toBe(20);
      expect(p1("a[rel=next]").attr("href")).toBe("/search?q=zoning&page=2");
      const p2 = await page("/search?q=zoning&page=2");
      expect(p2("table.new tbody tr").length).toBe(5);
      // Each page its own title (a tab, a bookmark, a screen reader's page list tell them apart).
      expect(p1("title").text()).toMatch(/^Search: zoning \S/);
      expect(p1("title").text()).not.toContain("page 1");
      expect(p2("title").text()).toMatch(/^Search: zoning \(page 2 of 2\)/);
      expect((await f.app.request("/search?q=zoning&page=0")).status).toBe(400);
      // Past the last page: not found, the same on the page and in the API.
      const past = await f.app.request("/search?q=zoning&page=3");
      expect(past.status).toBe(404);
      expect(await past.text()).toContain("past the last page of these results (2)");
      expect((await f.app.request("/api/search?q=zoning&page=3")).status).toBe(404);
      expect((await f.app.request("/api/search?q=zoning&page=2")).status).toBe(200);
      // The first page exists even with nothing found.
      expect((await f.app.request("/search?q=nothingmatchesthis")).status).toBe(200);
    } finally {
      await f.store.db.deleteFrom("records").where("record_id", "like", "page-%").execute();
    }
    // The FTS index follows deletes (triggers): the removed rows are no longer found.
    const gone = (await (await f.app.request("/api/search?q=zoning")).json()) as {
      recordTotal: number;
    };
    expect(gone.recordTotal).toBe(0);
  });

  it("a source is found by its government's words too, and a plural finds the singular: 'bids Franklin', 'records'", async () => {
    type Answer = { sources: { id: string }[]; records: unknown[]; recordTotal: number };
    const ask = async (q: string) =>
      (await (await f.app.request(`/api/search?q=${encodeURIComponent(q)}`)).json()) as Answer;
    // The home page's own example: a kind of records and a county.
    expect((await ask("bids Franklin")).sources.map((s) => s.id)).toEqual(["test-bids"]);
    expect((await ask("Akron minutes")).sources.map((s) => s.id)).toEqual(["akron-minutes"]);
    expect((await ask("bids Summit")).sources).toEqual([]);
    // Every word must be found, in the page's words or its government's: "village" names
    // the government of both of Test's pages, "agendas" only one of them.
    expect((await ask("agendas village")).sources.map((s) => s.id)).toEqual(["test-agendas"]);
    // "records" finds the titles that say "Record N" (seven of them), as "recor" does.
    expect((await ask("records")).recordTotal).toBe(7);
    expect((await ask("Records 22")).recordTotal).toBe(1);
    expect(wordForms("bids")).toEqual(["bids", "bid"]);
    expect(wordForms("agencies")).toEqual(["agencies", "agency"]);
    expect(wordForms("address")).toEqual(["address"]);
    expect(wordForms("bus")).toEqual(["bus"]);
  });

  it("a search has its feeds", async () => {
    const res = await f.app.request("/search.json?q=record&records=bids");
    const feed = JSON.parse(await res.text()) as { feed_url: string; items: { title: string }[] };
    expect(feed.feed_url).toBe(`${ORIGIN}/search.json?q=record&records=bids`);
    expect(feed.items.map((i) => i.title).sort()).toEqual(["Record 30", "Record 31"]);
    expect((await f.app.request("/search.atom?q=")).status).toBe(400);
  });
});

describe("what is new, by window", () => {
  it("since yesterday, 7 and 30 days, and one night, with counts per county and kind", async () => {
    const json = async (q: string) =>
      (await (await f.app.request(`/api/new${q}`)).json()) as {
        items: unknown[];
        counts: {
          total: number;
          byCounty: { county: string | null; count: number }[];
          byRecords: { records: string; count: number }[];
        };
      };
    expect((await json("")).counts.total).toBe(4);
    const week = await json("?window=7d");
    expect(week.counts.total).toBe(8);
    expect(week.counts.byCounty).toEqual([
      { county: "Franklin", count: 6 },
      { county: "Summit", count: 2 },
    ]);
    expect(week.counts.byRecords[0]).toEqual({ records: "agendas", count: 4 });
    expect((await json("?night=2026-11-04")).counts.total).toBe(1);
    expect((await f.app.request("/api/new?window=1y")).status).toBe(400);
    expect((await f.app.request("/api/new?night=2026-02-30")).status).toBe(400);
  });

  it("honest wording: a night that never ran, a night that ended incomplete, and where the last new records were", async () => {
    const $ = await page("/new?night=2026-11-01");
    expect($(".night-notes li[data-state=did-not-run]").text()).toContain(
      "No check ran on the night of Nov 1",
    );
    // Before the directory's first night (Oct 25 in the fixture) no outage is claimed.
    const early = await page("/new?night=2026-10-20");
    expect(early(".night-notes li[data-state=did-not-run]").length).toBe(0);
    expect(early("main").text()).not.toContain("offline");
    expect($(".window").text()).toContain("No new records on the night of Nov 1");
    // After the directory's first night but before the pages were listed (Oct 31), no outage
    // either: for one page, a selection, or the whole directory, on the page and in the API.
    for (const [q, what] of [
      ["&source=akron-minutes", "this page"],
      ["&county=Summit", "any page in this selection"],
      ["", "any record page"],
    ]) {
      const p = await page(`/new?night=2026-10-28${q}`);
      expect(p(".night-notes li[data-state=did-not-run]").length, q).toBe(0);
      expect(p(".night-notes li[data-state=not-listed]").text(), q).toBe(
        `Nothing could be new on the night of Oct 28: it came before ${what} was listed in the directory.`,
      );
      expect(p("main").text(), q).not.toContain("offline");
      const api = (await (await f.app.request(`/api/new?night=2026-10-28${q}`)).json()) as {
        nights: { state: string }[];
      };
      expect(
        api.nights.map((n) => n.state),
        q,
      ).toEqual(["not-listed"]);
    }
    // Oct 25 ran (the directory's first night), but before anything was listed.
    const first = await page("/new?night=2026-10-25&source=akron-minutes");
    expect(first(".night-notes li").attr("data-state")).toBe("not-listed");
    // An unfinished night past its deadline ended incomplete; within its deadline it runs.
    await f.store.db
      .updateTable("nights")
      .set({ finished_at: null })
      .where("night", "=", "2026-11-04")
      .execute();
    try {
      const w = await page("/new");
      expect(w(".night-notes li[data-night='2026-11-04']").attr("data-state")).toBe("incomplete");
      expect(w(".night-notes").text()).toContain("ended before it finished");
      const running = createApp({
        db: f.store.db,
        now: () => Date.parse("2026-11-05T05:00:00.000Z"),
        origin: ORIGIN,
      });
      const r = load(await (await running.request("/new?night=2026-11-04")).text());
      expect(r(".night-notes li").attr("data-state")).toBe("running");
    } finally {
      await f.store.db
        .updateTable("nights")
        .set({ finished_at: "2026-11-05T04:01:00.000Z" })
        .where("night", "=", "2026-11-04")
        .execute();
    }
    // Nothing new in the window, but there was the night before: the page says where.
    const later = createApp({ db: f.store.db, now: () => NOW + 10 * 86_400_000, origin: ORIGIN });
    const home = load(await (await later.request("/")).text());
    expect(home("main").text()).toContain("The latest earlier night with new records is");
    expect(home("a[href='/new?night=2026-11-05']").length).toBe(1);
  });
});

describe("following", () => {
  it("iCalendar of upcoming meetings per county: meetings dated today or later, RFC 5545 lines", async () => {
    // A meeting on the township's notices page, dated today (Nov 5), linking to javascript:.
    await f.store.db
      .insertInto("records")
      .values({
        source_id: "evil-notices",
        record_id: "hearing",
        title: "Zoning hearing",
        date: "2026-11-05",
        url: "javascript:alert(2)",
        kind: "meetings",
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-06T04:00:05.000Z",
      })
      .execute();
    try {
      const res = await f.app.request("/meetings.ics?county=Summit");
      expect(res.headers.get("content-type")).toMatch(/^text\/calendar/);
      const text = await res.text();
      expect(text.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
      expect(text.endsWith("END:VCALENDAR\r\n")).toBe(true);
      for (const line of text.split("\r\n"))
        expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      // Today is Nov 5 in Ohio: the meeting dated Nov 5 is upcoming; the notice dated Nov 5
      // beside it is not a meeting.
      const starts = text.split("\r\n").filter((l) => l.startsWith("DTSTART"));
      expect(starts).toEqual(["DTSTART;VALUE=DATE:20261105"]);
      expect(text).toContain("SUMMARY:Zoning hearing");
      // The record's javascript: link is not passed on: the event points at its source's page.
      expect(text).toContain(`URL:${ORIGIN}/sources/evil-notices`);
      expect(text).not.toContain("javascript:");
      // Franklin's agendas are all dated before Nov 5: its calendar has no event.
      const franklin = await (await f.app.request("/meetings.ics?county=Franklin")).text();
      expect(franklin).not.toContain("BEGIN:VEVENT");
      expect((await f.app.request("/meetings.ics?government=nope")).status).toBe(400);
    } finally {
      await f.store.db.deleteFrom("records").where("record_id", "=", "hearing").execute();
    }
  });

  it("bulk downloads as CSV and JSON, the same rows; formulas in cells are neutralised", async () => {
    await f.store.db
      .insertInto("records")
      .values({
        source_id: "test-bids",
        record_id: "formula",
        title: '=HYPERLINK("http://x","y")',
        date: null,
        url: "javascript:alert(1)",
        kind: null,
        first_seen_night: "2026-11-03",
        first_seen_at: "2026-11-04T05:00:00.000Z",
      })
      .execute();
    try {
      const csv = await (await f.app.request("/downloads/records.csv")).text();
      const lines = csv.trim().split("\r\n");
      expect(lines[0]).toBe(
        "source_id,record_id,title,date,url,kind,records,government_id,county,first_seen_night,first_seen_at,already_listed",
      );
      // Each row says whether its record was already listed (never new on record).
      expect(lines.slice(1).every((l) => /,(true|false)$/.test(l))).toBe(true);
      const json = (await (await f.app.request("/downloads/records.json")).json()) as {
        records: { recordId: string; url: string | null }[];
      };
      expect(json.records.length).toBe(lines.length - 1);
      expect(csv).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
      expect(json.records.find((r) => r.recordId === "formula")?.url).toBeNull();
      const bids = (await (await f.app.request("/downloads/records.json?records=bids")).json()) as {
        records: unknown[];
      };
      expect(bids.records.length).toBe(3);
      expect((await f.app.request("/downloads/records.csv?sauce=1")).status).toBe(400);
      const gov = await (await f.app.request("/downloads/governments.csv")).text();
      expect(gov.split("\r\n")[0]).toBe("id,name,kind,county,website,sources");
    } finally {
      await f.store.db.deleteFrom("records").where("record_id", "=", "formula").execute();
    }
  });
});

describe("OpenAPI 3.1", () => {
  it("/api/openapi.json describes every API answer, and real answers validate against it", async () => {
    const doc = (await (await f.app.request("/api/openapi.json")).json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0]?.url).toBe(ORIGIN);
    const calls: [string, string, number][] = [
      ["/api/governments", "/api/governments?county=Summit", 200],
      ["/api/governments/{id}", "/api/governments/village-of-test", 200],
      ["/api/governments/{id}", "/api/governments/nope", 404],
      ["/api/counties", "/api/counties", 200],
      ["/api/counties/{county}", "/api/counties/franklin", 200],
      ["/api/sources/{id}", "/api/sources/test-bids", 200],
      ["/api/sources/{id}", "/api/sources/akron-minutes", 200],
      ["/api/new", "/api/new?window=30d", 200],
      ["/api/new", "/api/new?window=never", 400],
      ["/api/search", "/api/search?q=record", 200],
    ];
    for (const [template, url, status] of calls) {
      const res = await f.app.request(url);
      expect(res.status, url).toBe(status);
      const schema =
        doc.paths[template]?.get.responses[String(status)]?.content["application/json"]?.schema;
      expect(schema, `${template} ${status}`).toBeDefined();
      // JSON Schema 2020-12 → a validator (zod 4's fromJSONSchema; no other validator is installed).
      const validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      const body = await res.json();
      const r = validator.safeParse(body);
      expect(
        r.success,
        `${url}: ${r.success ? "" : JSON.stringify(r.error.issues.slice(0, 3))}`,
      ).toBe(true);
    }
    // The check can fail: an answer with an extra field or a javascript: URL does not validate.
    const src =
      doc.paths["/api/sources/{id}"]?.get.responses["200"]?.content["application/json"]?.schema;
    const v = z.fromJSONSchema(src as Parameters<typeof z.fromJSONSchema>[0]);
    const good = (await (await f.app.request("/api/sources/test-bids")).json()) as Record<
      string,
      unknown
    >;
    expect(v.safeParse({ ...good, extra: 1 }).success).toBe(false);
    expect(v.safeParse({ ...good, url: "javascript:alert(1)" }).success).toBe(false);
  });
});

describe("the search index", () => {
  it("is an FTS5 table kept by triggers (SQLite)", async () => {
    const r = await sql<{
      name: string;
    }>`select name from sqlite_master where name like '%_fts%' order by name`.execute(f.store.db);
    expect(r.rows.map((x) => x.name)).toContain("records_fts");
  });
});
