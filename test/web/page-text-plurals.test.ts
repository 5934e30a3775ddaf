import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheerioAPI, load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { countOf } from "../../src/web/public/format.js";
import { countyCountText } from "../../src/web/public/pages/governments.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * Counts on the public pages read as English: "1 record", "46 records", "1 government in
 * Licking County posts…", never "record(s)" or "1 governments"; and the home page names an
 * earlier night the way /new does ("the night of Nov 5"), never by its ISO key.
 */

/** One government a county, one with no record page listed, and a night with one record. */
const SMALL = `
governments:
  - { id: village-of-one, name: Village of One, kind: village, county: Licking }
  - { id: lone-township, name: Lone Township, kind: township, county: Knox }
  - { id: city-of-a, name: City of A, kind: city, county: Summit }
  - { id: city-of-b, name: City of B, kind: city, county: Summit }
  - { id: city-of-c, name: City of C, kind: city, county: Franklin }
  - { id: city-of-d, name: City of D, kind: city, county: Franklin }
  - { id: city-of-e, name: City of E, kind: city, county: Franklin }
sources:
  - { id: one-bids, government: village-of-one, records: bids, access: feed, url: "https://one.example/bids.rss" }
  - { id: a-minutes, government: city-of-a, records: minutes, access: feed, url: "https://a.example/minutes.rss" }
  - { id: b-minutes, government: city-of-b, records: minutes, access: feed, url: "https://b.example/minutes.rss" }
  - { id: c-minutes, government: city-of-c, records: minutes, access: feed, url: "https://c.example/minutes.rss" }
`;

let small: { store: Store; dir: string; app: ReturnType<typeof createApp> };
let f: Fixture;

beforeAll(async () => {
  f = await buildFixture();
  const dir = mkdtempSync(join(tmpdir(), "nor-web-plurals-"));
  const store = await openStore({ kind: "sqlite", dir });
  const cat = parseCatalog(SMALL, "test/web/plurals.yaml");
  await importCatalog(
    store.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "plurals.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "plurals.yaml"])),
    },
    NOW - 5 * 86_400_000,
  );
  const night = new SqlNightStore(store.db);
  const n = "2026-11-05";
  const at = Date.parse(`${n}T06:00:00.000Z`) + 22 * 3_600_000;
  const startedAt = Date.parse(`${n}T06:00:00.000Z`);
  await night.openNight(n, startedAt, startedAt + 6 * 3_600_000);
  await night.syncSources(
    cat.sources.map((s) => ({
      id: s.id,
      government: s.government,
      url: s.url,
      site: new URL(s.url).origin,
    })),
    startedAt,
  );
  await night.commit(n, {
    sourceId: "one-bids",
    outcome: { kind: "ok", url: "https://one.example/bids.rss" },
    records: [
      {
        id: "https://one.example/r/1",
        title: "Road salt bid",
        date: "2026-11-05",
        url: "https://one.example/r/1",
      },
    ],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  await night.finishNight(n, at + 60_000);
  // As if the page had been read on a night before (its record new on record: fixture.ts).
  await store.db.updateTable("records").set({ already_listed: 0 }).execute();
  small = { store, dir, app: createApp({ db: store.db, now: () => NOW, origin: ORIGIN }) };
});
afterAll(async () => {
  await f?.close();
  await small?.store.close();
  if (small) rmSync(small.dir, { recursive: true, force: true });
});

async function html(app: ReturnType<typeof createApp>, path: string): Promise<CheerioAPI> {
  const res = await app.request(path);
  expect(res.status, path).toBe(200);
  return load(await res.text());
}

const words = (s: string) => s.replace(/\s+/g, " ").trim();

describe("counts in words on the public pages", () => {
  it("countOf: one is singular, every other count plural", () => {
    expect(countOf(1, "record")).toBe("1 record");
    expect(countOf(0, "record")).toBe("0 records");
    expect(countOf(46, "record")).toBe("46 records");
    expect(countOf(2, "record page")).toBe("2 record pages");
  });

  it("a county page: one government posts, several post, some or none have a record page yet", async () => {
    expect(words((await html(small.app, "/counties/Licking"))(".county-count").text())).toBe(
      "1 government in Licking County posts records on these pages. Follow a kind of records by opening it.",
    );
    expect(words((await html(small.app, "/counties/Knox"))(".county-count").text())).toBe(
      "1 government in Knox County is listed; it has no record page listed now.",
    );
    expect(words((await html(small.app, "/counties/Summit"))(".county-count").text())).toBe(
      "2 governments in Summit County post records on these pages. Follow a kind of records by opening it.",
    );
    expect(words((await html(small.app, "/counties/Franklin"))(".county-count").text())).toBe(
      "3 governments in Franklin County are listed; 1 of them posts records on these pages. Follow a kind of records by opening it.",
    );
    expect(countyCountText("Knox", 2, 0)).toBe(
      "2 governments in Knox County are listed; none has a record page listed now.",
    );
    expect(countyCountText("Knox", 3, 2)).toBe(
      "3 governments in Knox County are listed; 2 of them post records on these pages. Follow a kind of records by opening it.",
    );
  });

  it("/governments: '1 government (Licking County).', '2 governments (Summit County).'", async () => {
    expect(words((await html(small.app, "/governments?county=Licking"))("p.muted").text())).toBe(
      "1 government (Licking County).",
    );
    expect(words((await html(small.app, "/governments?county=Summit"))("p.muted").text())).toBe(
      "2 governments (Summit County).",
    );
  });

  it("home and /new: '1 new record', '4 new records'; the home counts agree with their numbers", async () => {
    const home = await html(small.app, "/");
    expect(words(home("p.muted").first().text())).toContain("1 new record since yesterday.");
    expect(words(home("p.counts").text())).toBe(
      "7 governments, 4 record pages, 1 record noted so far.",
    );
    expect(words((await html(small.app, "/new"))("p.window").text())).toBe(
      "1 new record since yesterday, the last found first.",
    );
    const big = await html(f.app, "/");
    expect(words(big("p.muted").first().text())).toContain("4 new records since yesterday.");
    expect(words(big("p.counts").text())).toBe(
      "5 governments, 4 record pages, 8 records noted so far.",
    );
    expect(words((await html(f.app, "/new"))("p.window").text())).toBe(
      "4 new records since yesterday, the last found first.",
    );
  });

  it("search: '1 record matches', '7 records match'", async () => {
    expect(words((await html(small.app, "/search?q=salt"))("#record-total").text())).toBe(
      "1 record matches, best first; page 1 of 1.",
    );
    expect(words((await html(f.app, "/search?q=Recor"))("#record-total").text())).toBe(
      "7 records match, best first; page 1 of 1.",
    );
  });

  it("no public page says '(s)'", async () => {
    for (const [app, path] of [
      [small.app, "/"],
      [small.app, "/new"],
      [small.app, "/search?q=salt"],
      [small.app, "/counties/Licking"],
      [small.app, "/governments?county=Licking"],
      [f.app, "/"],
      [f.app, "/new?window=30d"],
      [f.app, "/search?q=Recor"],
      [f.app, "/sources/test-bids"],
      [f.app, "/governments/village-of-test"],
    ] as const) {
      expect(words((await html(app, path))("main").text()), path).not.toMatch(/\w\(s\)/);
    }
  });
});

describe("the home page names an earlier night as /new does", () => {
  it("with nothing new since yesterday, home and /new both link 'the night of Nov 5', never its ISO date", async () => {
    // Five days after the fixture's last night: nothing since yesterday; Nov 5 had new records.
    const later = createApp({
      db: f.store.db,
      now: () => Date.parse("2026-11-10T15:00:00.000Z"),
      origin: ORIGIN,
    });
    const home = await html(later, "/");
    const homeLink = home("a[href='/new?night=2026-11-05']");
    expect(words(homeLink.text())).toBe("the night of Nov 5");
    expect(words(homeLink.parent().text())).toContain(
      "The latest earlier night with new records is the night of Nov 5 (3).",
    );
    expect(home("main").text()).not.toContain("that of 2026-11-05");
    const next = await html(later, "/new");
    const newLink = next("p.window a");
    expect(newLink.attr("href")).toBe("/new?night=2026-11-05");
    expect(words(newLink.text())).toBe(words(homeLink.text()));
  });
});
