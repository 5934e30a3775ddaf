import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { buildFixture, type Fixture, NOT_READ_REASON, ORIGIN, REFUSAL } from "./fixture.js";

/**
 * The directory's queries on PostgreSQL (NOR_TEST_POSTGRES_URL): the same fixture, the same
 * answers as on SQLite — grouping, `nulls last`, counts that come back as strings.
 */
describe.skipIf(!postgresUrl)("the directory on PostgreSQL", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture(await factory.migrated());
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await factory.cleanup();
  });

  it("P23, P26: pages and API read the same rows as on SQLite", async () => {
    const govs = (await (await f.app.request("/api/governments")).json()) as {
      governments: { id: string; sourceCount: number }[];
    };
    expect(govs.governments.map((g) => `${g.id}:${g.sourceCount}`)).toEqual([
      "franklin-county:0",
      "village-of-test:2",
      "evil-township:1",
      "city-of-akron:1",
      "ohio-epa:0",
    ]);
    const $ = load(await (await f.app.request("/sources/test-bids")).text());
    expect($("section.last-no .reference").text()).toBe(REFUSAL.reference);
    const akron = load(await (await f.app.request("/governments/city-of-akron")).text());
    expect(akron("#source-akron-minutes .reason").text()).toBe(NOT_READ_REASON);
    const news = (await (await f.app.request("/api/new?county=franklin")).json()) as {
      items: { recordId: string }[];
    };
    expect(news.items.map((i) => i.recordId)).toEqual([
      "https://test.example/r/22",
      "https://test.example/r/12",
      "https://test.example/r/31",
    ]);
    const records = load(await (await f.app.request("/sources/test-agendas")).text());
    expect(records("table.records tbody tr").length).toBe(4);
  });

  it("search (full text with GIN indexes, migration 010) and windows answer as on SQLite", async () => {
    const s = (await (await f.app.request("/api/search?q=recor")).json()) as {
      recordTotal: number;
      governments: unknown[];
    };
    expect(s.recordTotal).toBe(7);
    const v = (await (await f.app.request("/api/search?q=village")).json()) as {
      governments: { id: string }[];
    };
    expect(v.governments.map((g) => g.id)).toEqual(["village-of-test"]);
    const one = (await (await f.app.request("/api/search?q=record%2022")).json()) as {
      records: { recordId: string }[];
    };
    expect(one.records.map((r) => r.recordId)).toEqual(["https://test.example/r/22"]);
    // A source by its government's words; a plural finds the singular.
    const bids = (await (await f.app.request("/api/search?q=bids%20Franklin")).json()) as {
      sources: { id: string }[];
    };
    expect(bids.sources.map((x) => x.id)).toEqual(["test-bids"]);
    const plural = (await (await f.app.request("/api/search?q=records")).json()) as {
      recordTotal: number;
    };
    expect(plural.recordTotal).toBe(7);
    // docs/api.md: a word typed twice is one; nine different words are refused, not cut.
    const total = async (q: string) =>
      (
        (await (await f.app.request(`/api/search?q=${encodeURIComponent(q)}`)).json()) as {
          recordTotal: number;
        }
      ).recordTotal;
    expect(await total(`${"record ".repeat(8)}xyzzy`)).toBe(0);
    expect(await total("record 2")).toBe(2);
    expect(await total("record 2 record")).toBe(0);
    const nine = await f.app.request("/api/search?q=a+b+c+d+e+f+g+h+i");
    expect(nine.status).toBe(400);
    const week = (await (await f.app.request("/api/new?window=7d")).json()) as {
      counts: { total: number; byCounty: { county: string | null; count: number }[] };
    };
    expect(week.counts.total).toBe(8);
    expect(week.counts.byCounty).toEqual([
      { county: "Franklin", count: 6 },
      { county: "Summit", count: 2 },
    ]);
    // The calendar on Nov 3: Franklin's agendas dated Nov 4 are upcoming, its bid dated Nov 3 is
    // not a meeting (test/web/ical.test.ts: which records are meetings, on both stores).
    const nov3 = createApp({
      db: f.store.db,
      now: () => Date.parse("2026-11-03T15:00:00.000Z"),
      origin: ORIGIN,
    });
    const ics = await (await nov3.request("/meetings.ics?county=Franklin")).text();
    expect(ics.split("\r\n").filter((l) => l.startsWith("DTSTART"))).toEqual([
      "DTSTART;VALUE=DATE:20261104",
      "DTSTART:20261104T233000Z",
    ]);
  });
});
