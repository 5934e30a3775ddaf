import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * docs/api.md's search: pages 1–50, 20 records a page, so at most the best 1,000 matches can be
 * listed, and the page and the API say so instead of linking to a page that is refused; every
 * word must match and nothing is silently ignored, so more words than are searched is a 400
 * (a word typed twice is one condition).
 */
let f: Fixture;
/** Records titled "Permit N" beside the fixture's own: more than 50 pages of 20. */
const PERMITS = 1050;
beforeAll(async () => {
  f = await buildFixture();
  const rows = Array.from({ length: PERMITS }, (_v, i) => ({
    source_id: "akron-minutes",
    record_id: `permit-${i}`,
    title: `Permit ${i}`,
    date: null,
    url: null,
    kind: null,
    first_seen_night: "2026-11-03",
    first_seen_at: new Date(Date.parse("2026-11-04T05:00:00.000Z") + i).toISOString(),
  }));
  for (let i = 0; i < rows.length; i += 200) {
    await f.store.db
      .insertInto("records")
      .values(rows.slice(i, i + 200))
      .execute();
  }
});
afterAll(async () => {
  await f?.close();
});

const page = async (path: string, status = 200) => {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  return load(await res.text());
};

interface SearchAnswer {
  page: number;
  pages: number;
  capped: boolean;
  recordTotal: number;
  records: { recordId: string }[];
}
const api = async (path: string, status = 200) => {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
  return (await res.json()) as SearchAnswer & { error?: string };
};

describe("docs/api.md: search has pages 1–50", () => {
  it("1,050 matches: page 50 is the last, has no Next, and says only the best 1000 are listed", async () => {
    const last = await page("/search?q=permit&page=50");
    const total = last("#record-total").text();
    expect(total).toContain(`${PERMITS} records match, best first; page 50 of 50.`);
    expect(last("a[rel=next]").length).toBe(0);
    expect(last("a[rel=prev]").attr("href")).toBe("/search?q=permit&page=49");
    expect(last("table.new tbody tr").length).toBe(20);
    const cut = last("#search-cut").text();
    expect(cut).toContain("Only the best 1000 are listed");
    expect(cut).toContain("narrow");
    // Every page of the search says it, and every Next link it shows opens.
    const first = await page("/search?q=permit");
    expect(first("#record-total").text()).toContain("page 1 of 50.");
    expect(first("#search-cut").text()).toContain("Only the best 1000 are listed");
    const p49 = await page("/search?q=permit&page=49");
    const next = p49("a[rel=next]").attr("href") ?? "";
    expect(next).toBe("/search?q=permit&page=50");
    await page(next);
    // Past it: refused as before.
    expect((await f.app.request("/search?q=permit&page=51")).status).toBe(400);
  });

  it("a search that fits in 50 pages says nothing of a cut", async () => {
    const $ = await page("/search?q=record");
    expect($("#record-total").text()).toContain("7 records match, best first; page 1 of 1.");
    expect($("#search-cut").length).toBe(0);
  });

  it("/api/search says the cut: pages (at most 50) and capped", async () => {
    const a = await api("/api/search?q=permit&page=50");
    expect(a.recordTotal).toBe(PERMITS);
    expect(a.pages).toBe(50);
    expect(a.capped).toBe(true);
    expect(a.records.length).toBe(20);
    expect((await api("/api/search?q=permit")).pages).toBe(50);
    const small = await api("/api/search?q=record");
    expect(small.pages).toBe(1);
    expect(small.capped).toBe(false);
    // Nothing found: one page, empty.
    const none = await api("/api/search?q=nothingmatchesthis");
    expect([none.pages, none.capped, none.recordTotal]).toEqual([1, false, 0]);
    expect((await api("/api/search?q=permit&page=51", 400)).error).toContain("from 1 to 50");
    // The fields are in the OpenAPI document the app serves, and a cut answer validates.
    const doc = (await (await f.app.request("/api/openapi.json")).json()) as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const schema =
      doc.paths["/api/search"]?.get.responses["200"]?.content["application/json"]?.schema;
    const v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(v.safeParse(a).success).toBe(true);
    expect(v.safeParse({ ...a, pages: 51 }).success).toBe(false);
    const { capped: _capped, ...uncut } = a;
    expect(v.safeParse(uncut).success).toBe(false);
  });

  it("the search feeds hold the latest matches new on record, and say how many there are", async () => {
    type Feed = { description: string; items: { id: string }[] };
    const feed = async (q: string) =>
      (await (await f.app.request(`/search.json?q=${q}`)).json()) as Feed;
    const id = (i: number) => `urn:new-on-record:record:akron-minutes:permit-${i}`;
    // Followed for what is new: the latest first seen, whatever ranks best (a title that says
    // "permit" three times, first seen a month before, is the best match of all).
    await f.store.db
      .insertInto("records")
      .values({
        source_id: "akron-minutes",
        record_id: "permit-best",
        title: "Permit permit permit",
        date: null,
        url: null,
        kind: null,
        first_seen_night: "2026-10-03",
        first_seen_at: "2026-10-04T05:00:00.000Z",
      })
      .execute();
    try {
      const best = (await api("/api/search?q=permit")).records[0]?.recordId;
      expect(best).toBe("permit-best");
      const permits = await feed("permit");
      // After the notice of akron-minutes, not read (P26: an item of its own, not a match).
      expect(
        permits.items
          .filter((x) => !x.id.startsWith("urn:new-on-record:not-read:"))
          .map((x) => x.id),
      ).toEqual(Array.from({ length: 100 }, (_v, k) => id(PERMITS - 1 - k)));
      expect(permits.description).toContain(
        `the latest 100 of ${PERMITS + 1} records, newest first`,
      );
    } finally {
      await f.store.db.deleteFrom("records").where("record_id", "=", "permit-best").execute();
    }
    // The records a page already listed when first read are not what is new: not here.
    const listed = ["permit-1049", "permit-1048"];
    await f.store.db
      .updateTable("records")
      .set({ already_listed: 1 })
      .where("record_id", "in", listed)
      .execute();
    try {
      const after = await feed("permit");
      expect(after.items.find((x) => !x.id.includes(":not-read:"))?.id).toBe(id(PERMITS - 3));
      expect(after.items.map((x) => x.id)).not.toContain(id(PERMITS - 1));
      expect(after.description).toContain(`the latest 100 of ${PERMITS - 2} records, newest first`);
      expect(after.description).toContain("already listed");
    } finally {
      await f.store.db
        .updateTable("records")
        .set({ already_listed: 0 })
        .where("record_id", "in", listed)
        .execute();
    }
    expect((await feed("record")).description).toContain("all 7 records, newest first");
    // After the words of akron-minutes' notice (not read, P26: the whole state holds it).
    expect((await feed("zzzzqqq")).description).toMatch(
      /^1 of the 4 record pages here is not read, .* Records whose titles match "zzzzqqq".*: none so far\.$/,
    );
  });
});

describe("docs/api.md: every word must match, nothing is silently ignored", () => {
  it("a ninth word is not dropped: a word typed twice is one condition, so 'record' eight times and 'xyzzy' finds nothing", async () => {
    const q = `${"record ".repeat(8)}xyzzy`;
    const a = await api(`/api/search?q=${encodeURIComponent(q)}`);
    expect(a.recordTotal).toBe(0);
    // The same word repeated finds what it finds once.
    const twice = await api(`/api/search?q=${encodeURIComponent("record record 22")}`);
    expect(twice.records.map((r) => r.recordId)).toEqual(["https://test.example/r/22"]);
    // The last word is a prefix only when it was not typed whole before it: "record 2 record"
    // needs the whole word "2", as "2 record" does.
    const back = await api(`/api/search?q=${encodeURIComponent("record 2 record")}`);
    expect(back.recordTotal).toBe(0);
    expect((await api("/api/search?q=2+record")).recordTotal).toBe(0);
    // "Record 20" and "Record 22": "2" as the last word is a prefix.
    expect((await api("/api/search?q=record+2")).recordTotal).toBe(2);
  });

  it("more than 8 different words: 400 naming the limit, as JSON, a page and plain text", async () => {
    const q = encodeURIComponent("one two three four five six seven eight nine");
    const message = "A search takes at most 8 different words, and this one has 9";
    const a = await api(`/api/search?q=${q}`, 400);
    expect(a.error).toContain(message);
    const html = await f.app.request(`/search?q=${q}`);
    expect(html.status).toBe(400);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(load(await html.text())(".message").text()).toContain(message);
    for (const feed of ["atom", "rss", "json"]) {
      const res = await f.app.request(`/search.${feed}?q=${q}`);
      expect(res.status, feed).toBe(400);
      expect(res.headers.get("content-type"), feed).toMatch(/^text\/plain/);
      expect(await res.text(), feed).toContain(message);
    }
    // Eight different words are searched (all of them must match).
    const eight = encodeURIComponent("record one two three four five six seven");
    expect((await api(`/api/search?q=${eight}`)).recordTotal).toBe(0);
  });
});

describe("a filtered search says so, and keeps its filter", () => {
  it("the page names the filter, counts within it, and its form sends the filter again; the feeds' titles name it", async () => {
    const $ = await page("/search?q=permit&county=Franklin");
    expect($(".search-scope").text()).toContain("Only in: Franklin County");
    expect($(".search-scope a").attr("href")).toBe("/search?q=permit");
    expect($("#record-total").text()).toBe("No record titles match in Franklin County.");
    expect($("form.search-big input[type=hidden][name=county]").attr("value")).toBe("Franklin");
    const summit = await page("/search?q=permit&county=Summit");
    expect(summit("#record-total").text()).toContain(`${PERMITS} records match in Summit County`);
    const feed = (await (await f.app.request("/search.json?q=permit&county=Franklin")).json()) as {
      title: string;
      description: string;
    };
    expect(feed.title).toBe('New on Record: search "permit" in Franklin County');
    expect(feed.description).toContain('match "permit" in Franklin County');
    // No filter, nothing said of one.
    const all = await page("/search?q=permit");
    expect(all(".search-scope").length).toBe(0);
    expect(all("form.search-big input[type=hidden]").length).toBe(0);
  });

  it("the search page offers the filters: county, kind and records chosen as set, the words kept", async () => {
    const $ = await page("/search?q=permit&county=summit+county&records=minutes");
    const form = $("form.filter");
    expect(form.attr("action")).toBe("/search");
    expect(form.find("input[type=hidden][name=q]").attr("value")).toBe("permit");
    expect(form.find("select[name=county] option[selected]").attr("value")).toBe("Summit");
    expect(form.find("select[name=county] option").length).toBeGreaterThan(1);
    expect(form.find("select[name=records] option[selected]").attr("value")).toBe("minutes");
    expect(form.find("select[name=kind] option[selected]").length).toBe(0);
    const again = await page("/search?q=permit&county=Summit&kind=&records=minutes");
    expect(again("#record-total").text()).toContain(`${PERMITS} records match in Summit County`);
    // No words yet: nothing to narrow.
    expect((await page("/search"))("form.filter").length).toBe(0);
  });
});
