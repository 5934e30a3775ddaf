import { load } from "cheerio";
import { afterAll, describe, expect, it } from "vitest";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, type Fixture, NIGHTS } from "./fixture.js";

/**
 * docs/api.md, search: every word must match, and nothing typed is cut. A word over 64
 * characters was cut to its first 64, silently: typed last it was searched as a prefix of those
 * 64, so another long word that shares them matched; typed before another word it had to match
 * as those 64 letters whole, so the very word it was cut from did not. A word is now searched
 * whole, as long as the `q` it is in may be (500 characters), on both stores. The one word no
 * store can search whole, one longer than PostgreSQL's 2047 bytes once its compatibility
 * characters are written out (`㌖` is `キロメートル`), is refused with a 400 that says so, never
 * dropped or cut.
 */
const stores = storeFactories();

const LONG = `${"a".repeat(64)}${"b".repeat(36)}`;
const TWIN = `${"a".repeat(64)}${"c".repeat(36)}`;

describe.each(stores)("a long word is searched whole ($name)", (factory) => {
  let f: Fixture | undefined;
  afterAll(async () => {
    await f?.close();
  });

  const fixture = async (): Promise<Fixture> => {
    if (f) return f;
    const made = await buildFixture(factory.name === "sqlite" ? undefined : await factory.fresh());
    f = made;
    const at = Date.parse(`${NIGHTS[2]}T06:00:00.000Z`) + 23 * 3_600_000;
    const c = await new SqlNightStore(made.store.db).commit(NIGHTS[2], {
      sourceId: "akron-minutes",
      outcome: { kind: "ok", url: "https://akron.example/minutes" },
      records: [
        {
          id: "https://akron.example/r/40",
          title: "Record 40",
          date: "2026-11-01",
          url: "https://akron.example/r/40",
        },
        {
          id: "https://akron.example/r/long",
          title: `Ordinance ${LONG} adopted`,
          date: "2026-11-05",
          url: "https://akron.example/r/long",
        },
      ],
      validators: [],
      flags: [],
      startedAt: at,
      endedAt: at + 1000,
    });
    expect(c.newRecords).toBe(1);
    return made;
  };

  const found = async (q: string) => {
    const res = await (await fixture()).app.request(`/api/search?q=${encodeURIComponent(q)}`);
    expect(res.status, q).toBe(200);
    const body = (await res.json()) as { q: string; records: { recordId: string }[] };
    expect(body.q).toBe(q);
    return body.records.map((r) => r.recordId);
  };

  it("the word typed whole finds its record, before another word or last", async () => {
    expect(await found(LONG)).toEqual(["https://akron.example/r/long"]);
    expect(await found(`${LONG} ordinance`)).toEqual(["https://akron.example/r/long"]);
  });

  it("another long word that shares its first 64 letters finds nothing", async () => {
    expect(await found(TWIN)).toEqual([]);
    expect(await found(`ordinance ${TWIN}`)).toEqual([]);
  });

  it("the page says the whole word it searched for", async () => {
    const res = await (await fixture()).app.request(`/search?q=${encodeURIComponent(TWIN)}`);
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    expect($("title").text()).toContain(TWIN);
    expect($("#q").attr("value")).toBe(TWIN);
  });

  it("a word too long for any store to search whole is a 400 that says so", async () => {
    const app = (await fixture()).app;
    // 120 characters typed; as searched, 720 katakana: 2160 bytes of UTF-8.
    const over = "\u3316".repeat(120);
    const api = await app.request(`/api/search?q=${encodeURIComponent(over)}`);
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toContain("too long to search");
    const page = await app.request(`/search?q=${encodeURIComponent(over)}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("too long to search");
    const feed = await app.request(`/search.atom?q=${encodeURIComponent(over)}`);
    expect(feed.status).toBe(400);
    // 100 of them (1800 bytes) are searched.
    const fits = "\u3316".repeat(100);
    expect((await app.request(`/api/search?q=${encodeURIComponent(fits)}`)).status).toBe(200);
  });
});
