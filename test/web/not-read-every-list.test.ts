import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { siteOf } from "../../src/policy/site.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { clearSiteRules, setSiteRule } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, catalog, type Fixture, NOT_READ_REASON, ORIGIN } from "./fixture.js";

/**
 * P26 on every public list of records, not /new's alone: a search (its page, its feeds,
 * /api/search), the calendar of meetings, a county's page and /api/counties/:county, the list of
 * governments, and /new by county, kind of government, kind of records or the whole state. Each
 * said nothing of a page not read in its selection, so a resident following Summit County's
 * minutes took silence for a page checked and quiet. The fixture: akron-minutes (City of Akron,
 * Summit County, a city's minutes) marked not read on Nov 4 (NOT_READ_REASON); evil-notices is
 * Summit County's other page; test-agendas and test-bids are Franklin County's (a village's);
 * old-permits (Franklin County's) was retired.
 */

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

const MINUTES_ITEM = "urn:new-on-record:not-read:source:akron-minutes:2026-11-04T14%3A00%3A00.000Z";

async function html(path: string) {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  return load(await res.text());
}

async function json<T>(path: string): Promise<T> {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function text(path: string) {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  return res.text();
}

const feedIds = async (path: string) =>
  (await json<{ items: { id: string }[] }>(path)).items.map((i) => i.id);

describe("P26: /new by county, kind or the whole state says which of its record pages are not read, and why", () => {
  it("Summit County (/new, its feeds, /api/new) names akron-minutes, 1 of its 2 pages", async () => {
    const $ = await html("/new?county=Summit");
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("1 of the 2 record pages here is not read");
    expect(notice.text()).toContain(NOT_READ_REASON);
    expect(notice.find('a[href="/sources/akron-minutes"]').length).toBe(1);
    for (const format of ["atom", "rss", "json"]) {
      const body = await text(`/new.${format}?county=Summit`);
      expect(body, format).toContain("urn:new-on-record:not-read:source:akron-minutes:");
      expect(body, format).toContain(NOT_READ_REASON);
    }
    expect((await feedIds("/new.json?county=Summit"))[0]).toBe(MINUTES_ITEM);
    const api = await json<{ notRead: unknown }>("/api/new?county=Summit");
    expect(api.notRead).toEqual([
      { source: "akron-minutes", reason: NOT_READ_REASON, since: "2026-11-04T14:00:00.000Z" },
    ]);
  });

  it("a county, kind of government or kind of records without such a page says nothing of it", async () => {
    for (const q of [
      "county=Franklin",
      "kind=village",
      "records=bids",
      "kind=city&county=Franklin",
    ]) {
      const $ = await html(`/new?${q}`);
      expect($("#not-read-scope").length, q).toBe(0);
      expect((await json<{ notRead: unknown }>(`/api/new?${q}`)).notRead, q).toEqual([]);
      expect(await text(`/new.atom?${q}`), q).not.toContain("not-read");
    }
  });

  it("a kind of government, a kind of records, and the whole state, name it as their records' filter does", async () => {
    for (const q of ["kind=city", "records=minutes", "county=Summit&kind=city"]) {
      const api = await json<{ notRead: { source: string }[] }>(`/api/new?${q}`);
      expect(
        api.notRead.map((x) => x.source),
        q,
      ).toEqual(["akron-minutes"]);
      expect((await feedIds(`/new.json?${q}`))[0], q).toBe(MINUTES_ITEM);
    }
    // Ohio: four current record pages (old-permits was retired), one not read.
    const $ = await html("/new");
    expect($("#not-read-scope").text()).toContain("1 of the 4 record pages here is not read");
    expect((await feedIds("/new.json"))[0]).toBe(MINUTES_ITEM);
    const api = await json<{ notRead: { source: string }[] }>("/api/new");
    expect(api.notRead.map((x) => x.source)).toEqual(["akron-minutes"]);
  });
});

describe("P26: the front page's newest across Ohio says which record pages are not read", () => {
  it("under its newest records: 1 of the 4 record pages, folded, each linked with why", async () => {
    const $ = await html("/");
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("1 of the 4 record pages here is not read");
    expect(notice.find("details a[href='/sources/akron-minutes']").length).toBe(1);
    expect(notice.find(".reason").text()).toContain(NOT_READ_REASON);
  });
});

describe("P26: a search (its page, its feeds, /api/search) says which record pages of its selection are not read", () => {
  it("a search in Summit County names akron-minutes, with why, since when and its page", async () => {
    const $ = await html("/search?q=record&county=Summit");
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("1 of the 2 record pages here is not read");
    expect(notice.text()).toContain(NOT_READ_REASON);
    expect(notice.text()).toContain("found here");
    expect(notice.find('a[href="/sources/akron-minutes"]').length).toBe(1);
    for (const format of ["atom", "rss", "json"]) {
      const body = await text(`/search.${format}?q=record&county=Summit`);
      expect(body, format).toContain("urn:new-on-record:not-read:source:akron-minutes:");
      expect(body, format).toContain(NOT_READ_REASON);
      expect(body, format).toContain(`${ORIGIN}/sources/akron-minutes`);
    }
    // One item a page, before the records, the same id as /new's: the page's, not the search's.
    expect((await feedIds("/search.json?q=record&county=Summit"))[0]).toBe(MINUTES_ITEM);
    const api = await json<{ notRead: unknown }>("/api/search?q=record&county=Summit");
    expect(api.notRead).toEqual([
      { source: "akron-minutes", reason: NOT_READ_REASON, since: "2026-11-04T14:00:00.000Z" },
    ]);
  });

  it("the search's words do not hide it (nothing new from the page can match them); its filter does", async () => {
    // A word no record of akron-minutes holds: the page is not read, so what it posts now is
    // unknown, and might match.
    const api = await json<{ notRead: { source: string }[] }>("/api/search?q=agenda");
    expect(api.notRead.map((x) => x.source)).toEqual(["akron-minutes"]);
    for (const q of ["q=record&county=Franklin", "q=record&government=village-of-test"]) {
      const $ = await html(`/search?${q}`);
      expect($("#not-read-scope").length, q).toBe(0);
      expect((await json<{ notRead: unknown }>(`/api/search?${q}`)).notRead, q).toEqual([]);
      expect(await text(`/search.atom?${q}`), q).not.toContain("not-read");
    }
  });

  it("a search page without words says it too (the selection's pages are what is searched)", async () => {
    const $ = await html("/search?q=record&source=akron-minutes");
    expect($("#not-read-scope").text()).toContain("is not read");
  });
});

describe("P26: the calendar of meetings says which of its record pages of meetings are not read", () => {
  it("a kind of records named (minutes): the calendar's description names akron-minutes", async () => {
    const ics = (await text("/meetings.ics?records=minutes")).replace(/\r\n[ \t]/g, "");
    const desc = /\nX-WR-CALDESC:([^\r\n]*)/.exec(ics)?.[1] ?? "";
    expect(desc).toContain("is not read");
    expect(desc).toContain("akron-minutes");
    expect(desc).toContain(NOT_READ_REASON.replace(/[,;]/g, (c) => `\\${c}`));
  });

  it("Summit County's calendar: its minutes list no meetings, so nothing is said of them", async () => {
    const ics = await text("/meetings.ics?county=Summit");
    expect(ics).not.toContain("not read");
  });
});

describe("P26: a county's page, /api/counties/:county and /governments show each record page not read, with why", () => {
  it("/counties/Summit: a notice naming akron-minutes, and its row says not read with the reason", async () => {
    const $ = await html("/counties/Summit");
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("1 of the 2 record pages here is not read");
    expect(notice.find('a[href="/sources/akron-minutes"]').length).toBe(1);
    const row = $("#gov-city-of-akron");
    expect(row.find('a[href="/sources/akron-minutes"]').length).toBe(1);
    expect(row.find(".status").text()).toContain("not read");
    expect(row.find(".reason").text()).toContain(NOT_READ_REASON);
    // The other government's page, read, says nothing of the kind.
    expect($("#gov-evil-township .status").length).toBe(0);
    const f2 = await html("/counties/Franklin");
    expect(f2("#not-read-scope").length).toBe(0);
  });

  it("/api/counties/Summit carries notRead ([{ source, reason, since }]); Franklin []", async () => {
    const j = await json<{ notRead: unknown }>("/api/counties/Summit");
    expect(j.notRead).toEqual([
      { source: "akron-minutes", reason: NOT_READ_REASON, since: "2026-11-04T14:00:00.000Z" },
    ]);
    expect((await json<{ notRead: unknown }>("/api/counties/Franklin")).notRead).toEqual([]);
  });

  it("/governments: the row of City of Akron says its minutes are not read, and why", async () => {
    const $ = await html("/governments");
    const row = $("#gov-city-of-akron");
    expect(row.find(".status").text()).toContain("not read");
    expect(row.find(".reason").text()).toContain(NOT_READ_REASON);
    expect($("#gov-village-of-test .status").length).toBe(0);
  });

  it("/api/search and /api/counties/:county as served validate against /api/openapi.json", async () => {
    const doc = await json<{
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    }>("/api/openapi.json");
    for (const [path, url] of [
      ["/api/search", "/api/search?q=record&county=Summit"],
      ["/api/counties/{county}", "/api/counties/Summit"],
    ] as const) {
      const schema = doc.paths[path]?.get.responses["200"]?.content["application/json"]?.schema;
      expect(schema, path).toBeDefined();
      const v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      const r = v.safeParse(await json(url));
      expect(
        r.success,
        `${url}: ${r.success ? "" : JSON.stringify(r.error.issues.slice(0, 3))}`,
      ).toBe(true);
    }
  });
});

describe("P26: a site's owner's request, a retired page, markup in a reason, and the feeds' caching", () => {
  const evil = siteOf("https://evil.example/feed");
  const franklin = siteOf("https://franklin.example/permits.rss");

  it("a retired page marked not read before it left, or on a site whose owner asked, is in no notice", async () => {
    // old-permits (retired) was marked not read while it was listed; its site's owner asks too.
    await f.store.db
      .insertInto("marks")
      .values({
        source_id: "old-permits",
        at: "2026-10-30T12:00:00.000Z",
        reading: 0,
        reason: "Retired page's old mark",
        by: "operator",
        night: "2026-10-30",
      })
      .execute();
    await setSiteRule(f.store.db, {
      site: franklin,
      kind: "not-read",
      reason: "Franklin asked",
      at: Date.parse("2026-11-05T09:00:00.000Z"),
      by: "operator",
    });
    for (const path of ["/api/new", "/api/new?county=Franklin", "/api/search?q=record"]) {
      const j = await json<{ notRead: { source: string }[] }>(path);
      expect(
        j.notRead.map((x) => x.source),
        path,
      ).not.toContain("old-permits");
    }
    expect((await html("/counties/Franklin"))("#not-read-scope").length).toBe(0);
    expect(await text("/new.atom?county=Franklin")).not.toContain("not-read");
  });

  it("a site's owner's request: said as the owner's, its reason text (never markup) on the page and in the feeds", async () => {
    await setSiteRule(f.store.db, {
      site: evil,
      kind: "not-read",
      reason: "<b>Stop</b> & <script>alert(2)</script>",
      at: Date.parse("2026-11-05T10:00:00.000Z"),
      by: "operator",
    });
    const j = await json<{ notRead: { source: string; reason: string }[] }>(
      "/api/search?q=record&county=Summit",
    );
    expect(j.notRead.map((x) => x.source)).toEqual(["akron-minutes", "evil-notices"]);
    const owner = j.notRead.find((x) => x.source === "evil-notices");
    expect(owner?.reason).toBe(
      "the site's owner asked not to be read (<b>Stop</b> & <script>alert(2)</script>)",
    );
    // The person's mark stays the person's reason.
    expect(j.notRead.find((x) => x.source === "akron-minutes")?.reason).toBe(NOT_READ_REASON);
    for (const path of [
      "/search?q=record&county=Summit",
      "/counties/Summit",
      "/new?county=Summit",
    ]) {
      const $ = await html(path);
      const notice = $("#not-read-scope");
      expect(notice.text(), path).toContain("Both record pages here are not read");
      expect(notice.text(), path).toContain("the site's owner asked not to be read");
      expect(notice.find("b, script").length, path).toBe(0);
      // The government's name, which holds a script tag, is text too.
      expect($("main script").length, path).toBe(0);
    }
    const rss = await text("/search.rss?q=record&county=Summit");
    expect(rss).not.toContain("<script>");
    expect(rss).not.toContain("<b>");
    const ics = await text("/meetings.ics?records=notices");
    expect(ics).toContain("the site's owner asked not to be read");
  });

  it("a feed's items keep their ids, its time never goes back, and an unchanged feed answers 304", async () => {
    const path = "/search.atom?q=record&county=Summit";
    const updated = async () =>
      /<updated>([^<]+)<\/updated>/.exec(
        (await text(path)).replace(/<entry>[\s\S]*?<\/entry>/g, ""),
      )?.[1];
    const first = await f.app.request(path);
    const tag = first.headers.get("etag") ?? "";
    expect(tag).not.toBe("");
    const again = await f.app.request(path, { headers: { "If-None-Match": tag } });
    expect(again.status).toBe(304);
    const before = await feedIds("/search.json?q=record&county=Summit");
    expect(before).toContain(MINUTES_ITEM);
    // The owner's request lifted at 20:00 (after every record): the item goes, the others stay
    // as they were, and the feed says it changed then.
    await clearSiteRules(f.store.db, {
      site: evil,
      kind: "not-read",
      at: Date.parse("2026-11-05T20:00:00.000Z"),
      by: "operator",
    });
    const after = await feedIds("/search.json?q=record&county=Summit");
    expect(after).toEqual(before.filter((id) => !id.includes("evil-notices")));
    expect(await updated()).toBe("2026-11-05T20:00:00.000Z");
    expect(await text("/search.rss?q=record&county=Summit")).toContain(
      "<lastBuildDate>Thu, 05 Nov 2026 20:00:00 GMT</lastBuildDate>",
    );
    const changed = await f.app.request(path, { headers: { "If-None-Match": tag } });
    expect(changed.status).toBe(200);
  });

  it("a page read again leaves every list's notice", async () => {
    await markSource(f.store.db, {
      source: "akron-minutes",
      reading: true,
      by: "operator",
      at: Date.parse("2026-11-05T21:00:00.000Z"),
      night: "2026-11-05",
    });
    expect((await json<{ notRead: unknown }>("/api/new")).notRead).toEqual([]);
    expect((await json<{ notRead: unknown }>("/api/counties/Summit")).notRead).toEqual([]);
    expect((await html("/search?q=record"))("#not-read-scope").length).toBe(0);
    expect(await text("/new.atom")).not.toContain("not-read");
  });
});

describe.each(storeFactories())(
  "P26: a county's notices on each store ($name): a person's mark, an owner's request on a host in capitals, a retired page",
  (factory) => {
    // The SQL that finds the pages (store/read/not-read.ts) over SQLite and PostgreSQL alike.
    let s: Store;
    const T0 = Date.parse("2026-11-05T12:00:00.000Z");
    beforeAll(async () => {
      s = await openStore(await factory.migrated());
      const c = catalog();
      const origins = {
        governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
        sources: new Map(c.sources.map((x) => [x.id, "catalog.yaml"])),
      };
      await importCatalog(s.db, c, origins, T0);
      // The catalog wrote evil-notices' host in capitals: its site is the same.
      await s.db
        .updateTable("sources")
        .set({ url: "https://EVIL.Example/feed" })
        .where("id", "=", "evil-notices")
        .execute();
    });
    afterAll(async () => {
      await s?.close();
    });

    it("names each page not read once, in id order, and the feed's time follows the latest change", async () => {
      const a = createApp({ db: s.db, now: () => T0 + 86_400_000, origin: ORIGIN });
      const notRead = async (path: string) =>
        (
          (await (await a.request(path)).json()) as {
            notRead: { source: string; reason: string }[];
          }
        ).notRead;
      expect(await notRead("/api/counties/Summit")).toEqual([]);
      await markSource(s.db, {
        source: "akron-minutes",
        reading: false,
        reason: "Asked for a sign-in",
        by: "operator",
        at: Date.parse("2026-11-05T13:00:00.000Z"),
        night: "2026-11-05",
      });
      await setSiteRule(s.db, {
        site: siteOf("https://evil.example/feed"),
        kind: "not-read",
        reason: "Owner's letter",
        at: Date.parse("2026-11-05T14:00:00.000Z"),
        by: "operator",
      });
      // franklin.example's owner asks too (old-permits' site; retired below).
      await setSiteRule(s.db, {
        site: siteOf("https://franklin.example/permits.rss"),
        kind: "not-read",
        reason: "Franklin's letter",
        at: Date.parse("2026-11-05T15:00:00.000Z"),
        by: "operator",
      });
      const summit = await notRead("/api/search?q=record&county=Summit");
      expect(summit.map((x) => x.source)).toEqual(["akron-minutes", "evil-notices"]);
      expect(summit[1]?.reason).toBe("the site's owner asked not to be read (Owner's letter)");
      // franklin-county's one page, old-permits, is in the catalog here (not retired in this
      // store): its owner's request names it; Village of Test's pages are read.
      expect((await notRead("/api/new?county=Franklin")).map((x) => x.source)).toEqual([
        "old-permits",
      ]);
      const atom = await (await a.request("/search.atom?q=record&county=Summit")).text();
      expect(
        /<updated>([^<]+)<\/updated>/.exec(atom.replace(/<entry>[\s\S]*?<\/entry>/g, ""))?.[1],
      ).toBe("2026-11-05T14:00:00.000Z");
      // Retired: in no list's notice, though its site's owner asked.
      await s.db
        .updateTable("sources")
        .set({ retired_at: "2026-11-05T16:00:00.000Z" })
        .where("id", "=", "old-permits")
        .execute();
      expect(await notRead("/api/new?county=Franklin")).toEqual([]);
      expect((await notRead("/api/new")).map((x) => x.source)).toEqual([
        "akron-minutes",
        "evil-notices",
      ]);
    });
  },
);

describe("P26: a page not read that leaves the catalog takes its notice with it, and the feed's time never goes back", () => {
  // Summit County's feed: evil-notices' record first seen on the night of Nov 5 (Nov 6, 04:00
  // UTC); akron-minutes marked not read again at 10:00 that day, its notice then the latest
  // change; an import at 12:00 retires it. Its notice left the feed, whose time went back to
  // 04:00, before the notice it had shown.
  let g: Fixture;
  beforeAll(async () => {
    g = await buildFixture();
  });
  afterAll(async () => {
    await g?.close();
  });

  it("the import's time, not the record's before it (Atom updated, RSS lastBuildDate)", async () => {
    const path = "/new.atom?county=Summit&window=7d";
    const updated = async () =>
      /<updated>([^<]+)<\/updated>/.exec(
        (await (await g.app.request(path)).text()).replace(/<entry>[\s\S]*?<\/entry>/g, ""),
      )?.[1];
    await markSource(g.store.db, {
      source: "akron-minutes",
      reading: false,
      reason: "Asked again by the clerk",
      by: "operator",
      at: Date.parse("2026-11-06T10:00:00.000Z"),
      night: "2026-11-06",
    });
    expect(await updated()).toBe("2026-11-06T10:00:00.000Z");
    const c = catalog();
    const kept = {
      ...c,
      sources: c.sources.filter((x) => x.id !== "akron-minutes" && x.id !== "old-permits"),
    };
    await importCatalog(
      g.store.db,
      kept,
      {
        governments: new Map(kept.governments.map((x) => [x.id, "catalog.yaml"])),
        sources: new Map(kept.sources.map((x) => [x.id, "catalog.yaml"])),
      },
      Date.parse("2026-11-06T12:00:00.000Z"),
      { allowRetire: true },
    );
    const atom = await (await g.app.request(path)).text();
    expect(atom).not.toContain("not-read");
    expect(await updated()).toBe("2026-11-06T12:00:00.000Z");
    expect(await (await g.app.request("/new.rss?county=Summit&window=7d")).text()).toContain(
      "<lastBuildDate>Fri, 06 Nov 2026 12:00:00 GMT</lastBuildDate>",
    );
  });
});
