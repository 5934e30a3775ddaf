import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { createApp } from "../../src/web/app.js";
import { postgresFactory, postgresUrl, sqliteFactory } from "../store/stores.js";
import { buildFixture, catalog, type Fixture, ORIGIN } from "./fixture.js";

/**
 * A filter that names what left the catalog (docs/api.md, `retired`). evil-notices' one record
 * was first seen on the last night (Nov 5); the next day `nor catalog import --allow-retire`
 * retires the page, later its government. The lists, feeds, downloads and search show the
 * current catalog, so with that filter they hold nothing: each says the page (or government) was
 * retired on that day and that its records are kept on its own page, never "nothing was first
 * seen", while that page still lists them.
 */
const LATER = Date.parse("2026-11-06T15:00:00.000Z");
const PAGE_RETIRED = "2026-11-06T12:00:00.000Z";
const GOV_RETIRED = "2026-11-06T13:00:00.000Z";

type App = ReturnType<typeof createApp>;

const files = (xs: readonly { id: string }[]) => new Map(xs.map((x) => [x.id, "catalog.yaml"]));

async function retire(f: Fixture, keep: (c: Catalog) => Catalog, at: string): Promise<void> {
  const c = keep(catalog());
  await importCatalog(
    f.store.db,
    c,
    { governments: files(c.governments), sources: files(c.sources) },
    Date.parse(at),
    { allowRetire: true },
  );
}

const withoutPage = (c: Catalog): Catalog => ({
  ...c,
  sources: c.sources.filter((s) => s.id !== "old-permits" && s.id !== "evil-notices"),
});
const withoutGovernment = (c: Catalog): Catalog => {
  const w = withoutPage(c);
  return {
    ...w,
    governments: w.governments.filter((g) => g.id !== "evil-township"),
    leads: w.leads.filter((l) => l.government !== "evil-township"),
  };
};

/** The answer validated against /api/openapi.json (closed schemas), as finding.test.ts does. */
async function valid(app: App, template: string, url: string) {
  const doc = (await (await app.request("/api/openapi.json")).json()) as {
    paths: Record<
      string,
      { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
    >;
  };
  const schema = doc.paths[template]?.get.responses["200"]?.content["application/json"]?.schema;
  const res = await app.request(url);
  expect(res.status, url).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  const r = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(body);
  expect(r.success, `${url}: ${r.success ? "" : JSON.stringify(r.error.issues.slice(0, 3))}`).toBe(
    true,
  );
  return body;
}

const sqlite = sqliteFactory();
const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const stores = [sqlite, ...(pg ? [pg] : [])];

describe.each(stores)("a filter that names a retired page or government ($name)", (factory) => {
  let f: Fixture;
  let app: App;
  let before: { counts: { total: number }; retired: unknown };
  beforeAll(async () => {
    f = await buildFixture(await factory.migrated());
    app = createApp({ db: f.store.db, now: () => LATER, origin: ORIGIN });
    before = (await (await app.request("/api/new?source=evil-notices")).json()) as typeof before;
    await retire(f, withoutPage, PAGE_RETIRED);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await factory.cleanup();
  });

  it("/new?source= says the page was retired that day and links its own page, never that there are no new records", async () => {
    // Before the import the page's record was new since yesterday, and listed.
    expect(before.counts.total).toBe(1);
    expect(before.retired).toBeNull();
    const res = await app.request("/new?source=evil-notices");
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    const notice = $("#retired-scope");
    expect(notice.attr("data-retired")).toBe("source");
    expect(notice.text()).toContain("was retired from the directory on Nov 6, 2026");
    expect(notice.text()).toContain("Its records are kept and listed on its own page");
    expect(notice.find("a").attr("href")).toBe("/sources/evil-notices");
    expect(notice.find("time").attr("datetime")).toBe(PAGE_RETIRED);
    expect($("main").text()).not.toContain("No new records");
    // No feed of it is offered: it is in none.
    expect($("link[rel=alternate]").length).toBe(0);
    // Its own page still lists the record first seen on the last night.
    const own = (await (await app.request("/api/sources/evil-notices")).json()) as {
      retiredAt: string;
      newestRecords: { recordId: string; firstSeenNight: string }[];
    };
    expect(own.retiredAt).toBe(PAGE_RETIRED);
    expect(own.newestRecords.map((r) => `${r.recordId}@${r.firstSeenNight}`)).toEqual([
      "e1@2026-11-05",
    ]);
    // A filter of a current page says nothing of the kind.
    const $$ = load(await (await app.request("/new?source=test-agendas")).text());
    expect($$("#retired-scope").length).toBe(0);
  });

  it("/api/new?source= carries `retired` (valid by /api/openapi.json); a current page's is null", async () => {
    const body = await valid(app, "/api/new", "/api/new?source=evil-notices");
    expect(body["retired"]).toEqual({
      what: "source",
      id: "evil-notices",
      retiredAt: PAGE_RETIRED,
      renamedTo: null,
      page: "/sources/evil-notices",
      api: "/api/sources/evil-notices",
    });
    expect((body["counts"] as { total: number }).total).toBe(0);
    expect((await valid(app, "/api/new", "/api/new?source=test-agendas"))["retired"]).toBeNull();
    const search = await valid(app, "/api/search", "/api/search?q=img&source=evil-notices");
    expect(search["retired"]).toEqual(body["retired"]);
  });

  it("the home page counts the current catalog's records, as the download does: a retired page's are not among them", async () => {
    const home = await (await app.request("/")).text();
    const noted = /<strong>(\d+)<\/strong>\s*records? noted so far/.exec(home);
    const download = (await (await app.request("/downloads/records.json")).json()) as {
      records: unknown[];
    };
    expect(Number(noted?.[1])).toBe(download.records.length);
    const stored = await f.store.db
      .selectFrom("records")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst();
    expect(Number(noted?.[1])).toBeLessThan(Number(stored?.n));
  });

  it("a download with that filter is a 410 that says so, never an empty file", async () => {
    for (const file of ["records.csv", "records.json"]) {
      const res = await app.request(`/downloads/${file}?source=evil-notices`);
      expect(res.status, file).toBe(410);
      expect(res.headers.get("content-type"), file).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(text, file).toContain("was retired from the directory on Nov 6, 2026");
      expect(text, file).toContain(`${ORIGIN}/sources/evil-notices`);
    }
    expect((await app.request("/downloads/records.csv?source=test-agendas")).status).toBe(200);
  });

  it("the feeds, the calendar and search with that filter say the same", async () => {
    const atom = await (await app.request("/new.atom?source=evil-notices")).text();
    const itemId = `urn:new-on-record:retired:source:evil-notices:${encodeURIComponent(PAGE_RETIRED)}`;
    expect(atom).toContain(`<id>${itemId}</id>`);
    expect(atom).toContain(`${ORIGIN}/sources/evil-notices`);
    const json = (await (await app.request("/new.json?source=evil-notices")).json()) as {
      description: string;
      items: { id: string; url: string }[];
    };
    expect(json.description).toContain("was retired from the directory on Nov 6, 2026");
    expect(json.items.map((i) => i.id)).toEqual([itemId]);
    const rss = await (await app.request("/search.rss?q=img&source=evil-notices")).text();
    expect(rss).toContain(itemId);
    const ics = (await (await app.request("/meetings.ics?source=evil-notices")).text()).replace(
      /\r\n /g,
      "",
    );
    expect(ics).toContain("X-WR-CALDESC:The record page");
    expect(ics).toContain("was retired from the directory on Nov 6\\, 2026");
    const $ = load(await (await app.request("/search?q=img&source=evil-notices")).text());
    expect($("#retired-scope").find("a").attr("href")).toBe("/sources/evil-notices");
    expect($("#record-total").length).toBe(0);
  });

  it("a retired government: /new?government= points to its page, which lists its record pages", async () => {
    await retire(f, withoutGovernment, GOV_RETIRED);
    const $ = load(await (await app.request("/new?government=evil-township")).text());
    expect($("#retired-scope").attr("data-retired")).toBe("government");
    expect($("#retired-scope").text()).toContain("was retired from the directory on Nov 6, 2026");
    expect($("#retired-scope a").attr("href")).toBe("/governments/evil-township");
    const body = await valid(app, "/api/new", "/api/new?government=evil-township");
    expect(body["retired"]).toEqual({
      what: "government",
      id: "evil-township",
      retiredAt: GOV_RETIRED,
      renamedTo: null,
      page: "/governments/evil-township",
      api: "/api/governments/evil-township",
    });
    const gov = load(await (await app.request("/governments/evil-township")).text());
    expect(gov("p.retired").text()).toContain("left the directory's catalog");
    expect(gov("#source-evil-notices a[href='/sources/evil-notices']").length).toBe(1);
    expect(gov("#source-evil-notices td").eq(2).text()).toBe("retired");
    expect(gov("link[rel=alternate]").length).toBe(0);
    const api = (await (await app.request("/api/governments/evil-township")).json()) as {
      sources: { id: string; retiredAt: string | null }[];
    };
    expect(api.sources).toEqual([
      expect.objectContaining({ id: "evil-notices", retiredAt: PAGE_RETIRED }),
    ]);
    expect((await app.request("/downloads/records.json?government=evil-township")).status).toBe(
      410,
    );
  });

  it("a page whose government left the catalog points to the page itself", async () => {
    // Only its government retired (the page's own row still current).
    await f.store.db
      .updateTable("sources")
      .set({ retired_at: null })
      .where("id", "=", "evil-notices")
      .execute();
    const body = await valid(app, "/api/new", "/api/new?source=evil-notices");
    expect(body["retired"]).toEqual({
      what: "government",
      id: "evil-township",
      retiredAt: GOV_RETIRED,
      renamedTo: null,
      page: "/sources/evil-notices",
      api: "/api/sources/evil-notices",
    });
    const $ = load(await (await app.request("/new?source=evil-notices")).text());
    expect($("#retired-scope").text()).toContain("left the directory with its government");
    expect($("#retired-scope a").attr("href")).toBe("/sources/evil-notices");
  });
});
