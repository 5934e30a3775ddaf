import { load } from "cheerio";
import { parseAtomFeed, parseRssFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { buildFixture, catalog, type Fixture, NOW } from "./fixture.js";

/**
 * "New on record … filterable by county" (SPEC.md, The directory): a county is one of Ohio's 88,
 * a fixed list (src/sources/catalog/counties.ts), as a kind of government is one of a fixed list.
 * A county's feed that a resident follows is a 200 whatever the catalog holds there today: one
 * whose governments have all left the catalog, or are not listed yet, is a list with nothing
 * new, whose nights say no record page matches (as `kind=special-district` with none listed
 * does), never a 400 "Unknown county" that a feed reader takes for a feed gone wrong. A name
 * that is no Ohio county is still a 400.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("the county filter reads any of Ohio's counties", () => {
  it("a county the directory lists nothing in yet: its feeds and API answer an empty list", async () => {
    const atom = await f.app.request("/new.atom?county=adams");
    expect(atom.status).toBe(200);
    const feed = parseAtomFeed(await atom.text());
    expect(feed.entries ?? []).toEqual([]);
    expect(feed.title?.value).toContain("Adams County");
    const api = await f.app.request("/api/new?county=Adams%20County");
    expect(api.status).toBe(200);
    const body = (await api.json()) as {
      filter: { county: string };
      counts: { total: number };
      nights: { state: string; text: string }[];
    };
    expect(body.filter.county).toBe("Adams");
    expect(body.counts.total).toBe(0);
    expect(body.nights.map((n) => n.state)).toEqual(["not-listed", "not-listed"]);
    expect(body.nights[0]?.text).toContain("no record page in the directory matches");
    const govs = await f.app.request("/api/governments?county=Adams");
    expect(govs.status).toBe(200);
    expect(((await govs.json()) as { governments: unknown[] }).governments).toEqual([]);
    const page = await f.app.request("/new?county=Adams");
    expect(page.status).toBe(200);
    // Its filter form keeps the county chosen, so filtering on from there keeps it.
    const $ = load(await page.text());
    expect($('select[name="county"] option[selected]').attr("value")).toBe("Adams");
    expect((await f.app.request("/meetings.ics?county=Adams")).status).toBe(200);
    expect((await f.app.request("/downloads/records.csv?county=Adams")).status).toBe(200);
    expect((await f.app.request("/search.json?q=record&county=Adams")).status).toBe(200);
  });

  it("a county whose governments all left the catalog: a reader's feed of it still answers (200)", async () => {
    const before = await f.app.request("/new.rss?county=Summit&window=7d");
    expect(before.status).toBe(200);
    expect(parseRssFeed(await before.text()).items?.length).toBeGreaterThan(0);
    // Summit's two governments (and their record pages) leave the catalog.
    const full = catalog();
    const summit = new Set(full.governments.filter((g) => g.county === "Summit").map((g) => g.id));
    const later = {
      ...full,
      governments: full.governments.filter((g) => !summit.has(g.id)),
      sources: full.sources.filter((s) => !summit.has(s.government) && s.id !== "old-permits"),
      leads: (full.leads ?? []).filter((l) => !summit.has(l.government)),
    };
    await importCatalog(
      f.store.db,
      later,
      {
        governments: new Map(later.governments.map((g) => [g.id, "catalog.yaml"])),
        sources: new Map(later.sources.map((s) => [s.id, "catalog.yaml"])),
      },
      NOW - 3_600_000,
      { allowRetire: true },
    );
    const after = await f.app.request("/new.rss?county=Summit&window=7d");
    expect(after.status).toBe(200);
    expect(parseRssFeed(await after.text()).items ?? []).toEqual([]);
    expect((await f.app.request("/api/new?county=summit")).status).toBe(200);
  });

  it("a name that is no county of Ohio is still refused (400), saying so", async () => {
    for (const name of ["Mars", "County", "Franklinx"]) {
      const res = await f.app.request(`/api/new?county=${name}`);
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain(`Unknown county "${name}"`);
    }
  });

  it("a county written with another space (two, a no-break space pasted from a page) is that county; a refusal names Ohio's counties, not the directory's", async () => {
    for (const name of [
      "Van%20%20Wert",
      "Van%C2%A0Wert",
      "van%09wert%20%20county",
      "Van%E3%80%80Wert",
    ]) {
      const res = await f.app.request(`/api/new?county=${name}`);
      expect(res.status, name).toBe(200);
      expect(((await res.json()) as { filter: { county: string } }).filter.county).toBe("Van Wert");
    }
    // The directory lists governments in two counties, but any of Ohio's 88 is read: the
    // refusal says that, and the county most likely meant.
    const res = await f.app.request("/api/new?county=Van%20Wart");
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toContain('Unknown county "Van Wart"');
    expect(error).toContain("Ohio's 88 counties");
    expect(error).toContain('"Van Wert"');
    expect(error).not.toContain("The directory knows");
  });
});
