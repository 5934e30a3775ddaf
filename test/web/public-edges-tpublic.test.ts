import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { migratedSqliteIn } from "../store/stores.js";
import { buildFixture, catalog, type Fixture, NOT_READ_REASON, ORIGIN } from "./fixture.js";

/**
 * What the outside tester `tpublic` found using the directory as the public does (a reporter, a
 * contractor following one county, a feed reader): a selection that names a government and a
 * record page of another government was titled by the record page alone, so its page and feeds
 * said "no new records" of a page that had some.
 */

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

/** The text of a page's <h1> and <title>, and what it says when nothing is new. */
async function page(path: string) {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  const $ = load(await res.text());
  return { h1: $("h1").text(), title: $("title").text(), body: $("main").text() };
}

describe("/new's selection: every filter given is named, a government beside a record page of another too", () => {
  // test-agendas is Village of Test's; City of Akron is another government. Nothing is both, so
  // the list is empty; titled by the record page alone, it said Village of Test's agendas had
  // nothing new since yesterday, where they had two (Record 12, Record 22).
  const q = "?government=city-of-akron&source=test-agendas";

  it("the record page alone has new records since yesterday (the list the title named)", async () => {
    const res = await f.app.request("/api/new?source=test-agendas");
    const j = (await res.json()) as { items: { title: string }[] };
    expect(j.items.map((i) => i.title).sort()).toEqual(["Record 12", "Record 22"]);
  });

  it("the page's heading and <title> name the government as well as the record page", async () => {
    const p = await page(`/new${q}`);
    for (const text of [p.h1, p.title]) {
      expect(text).toContain("Council agendas of Village of Test");
      expect(text).toContain("City of Akron");
    }
    expect(p.body).toContain("No new records since yesterday");
  });

  it("the feeds' titles and descriptions name it too (Atom, RSS, JSON Feed)", async () => {
    for (const format of ["atom", "rss", "json"]) {
      const res = await f.app.request(`/new.${format}${q}`);
      expect(res.status, format).toBe(200);
      const body = await res.text();
      const title =
        format === "json"
          ? (JSON.parse(body) as { title: string }).title
          : (/<title[^>]*>([^<]*)<\/title>/.exec(body)?.[1] ?? "");
      expect(title, format).toContain("Council agendas of Village of Test");
      expect(title, format).toContain("City of Akron");
    }
  });

  it("a government with its own record page is named once, by the record page", async () => {
    const p = await page("/new?government=village-of-test&source=test-agendas");
    expect(p.h1).toContain("Council agendas of Village of Test");
    expect(p.h1.match(/Village of Test/g)?.length).toBe(1);
  });
});

describe("a government whose record pages all left the catalog: none is listed now, never 'yet'", () => {
  // old-permits, Franklin County's only record page, left the catalog (fixture: it stays on its
  // own page only). The government's page said "No record pages are listed for this government
  // yet", and its row on /governments and its county's page "none listed yet", as if it had
  // never had one; the county page says "now" of a county whose governments all left (128f39e).

  it("/governments/ID says none is listed now", async () => {
    const res = await f.app.request("/governments/franklin-county");
    expect(res.status).toBe(200);
    const main = load(await res.text())("main").text();
    expect(main).toContain("No record pages are listed for this government now.");
    expect(main).not.toContain("yet");
  });

  it("/governments and its county's page say it has none listed now", async () => {
    for (const path of ["/governments", "/counties/Franklin"]) {
      const $ = load(await (await f.app.request(path)).text());
      const row = $("#gov-franklin-county").text();
      expect(row, path).toContain("none listed now");
      expect(row, path).not.toContain("yet");
    }
  });

  it("true of a government never given a record page alike (Ohio EPA)", async () => {
    const main = load(await (await f.app.request("/governments/ohio-epa")).text())("main").text();
    expect(main).toContain("No record pages are listed for this government now.");
  });
});

describe("P26: a list, a feed or /api/new of a record page not read says it is not read, and why, never only 'no new records'", () => {
  // akron-minutes was marked not read on Nov 4 (fixture, NOT_READ_REASON): no night reads it.
  // Its own page said so, but /new?source=akron-minutes said "No new records since yesterday"
  // under two finished nights, and its feeds only "New records since yesterday, minutes of City
  // of Akron.": a resident following it would take silence for nothing new.
  const q = "?source=akron-minutes";

  it("/new says the page is not read, with the reason and since when, linking its page", async () => {
    const res = await f.app.request(`/new${q}`);
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    const notice = $("#not-read-scope");
    expect(notice.length).toBe(1);
    expect(notice.text()).toContain("is not read");
    expect(notice.text()).toContain(NOT_READ_REASON);
    expect(notice.text()).toContain("Nov 4, 2026");
    expect(notice.find('a[href="/sources/akron-minutes"]').length).toBe(1);
  });

  it("the feeds say it in their description and in one item of their own (Atom, RSS, JSON Feed)", async () => {
    for (const format of ["atom", "rss", "json"]) {
      const res = await f.app.request(`/new.${format}${q}`);
      expect(res.status, format).toBe(200);
      const body = await res.text();
      expect(body, format).toContain(NOT_READ_REASON);
      // An item a reader shows (a description goes unread), never a record's id, linking the page.
      expect(body, format).toContain("urn:new-on-record:not-read:source:akron-minutes:");
      expect(body, format).toContain(`${ORIGIN}/sources/akron-minutes`);
    }
    // The same item, the same id, on every read: a reader shows it once.
    const a = await (await f.app.request(`/new.json${q}`)).json();
    const b = await (await f.app.request(`/new.json${q}`)).json();
    expect(a).toEqual(b);
  });

  it("/api/new carries notRead ([{ source, reason, since }]); [] for a page read", async () => {
    const j = (await (await f.app.request(`/api/new${q}`)).json()) as { notRead: unknown };
    expect(j.notRead).toEqual([
      { source: "akron-minutes", reason: NOT_READ_REASON, since: "2026-11-04T14:00:00.000Z" },
    ]);
    const read = (await (await f.app.request("/api/new?source=test-agendas")).json()) as {
      notRead: unknown;
    };
    expect(read.notRead).toEqual([]);
  });

  it("a government whose record page is not read: its list, feeds and /api/new say so too", async () => {
    // City of Akron's one record page is akron-minutes: its list said only "No new records".
    const $ = load(await (await f.app.request("/new?government=city-of-akron")).text());
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("is not read");
    expect(notice.text()).toContain(NOT_READ_REASON);
    expect(notice.find('a[href="/sources/akron-minutes"]').length).toBe(1);
    const atom = await (await f.app.request("/new.atom?government=city-of-akron")).text();
    expect(atom).toContain("urn:new-on-record:not-read:source:akron-minutes:");
    const j = (await (await f.app.request("/api/new?government=city-of-akron")).json()) as {
      notRead: { source: string }[];
    };
    expect(j.notRead.map((x) => x.source)).toEqual(["akron-minutes"]);
    // A government whose pages are all read says nothing of the kind.
    const test = load(await (await f.app.request("/new?government=village-of-test")).text());
    expect(test("#not-read-scope").length).toBe(0);
  });

  it("a feed's updated is never before its notice: a page marked not read after its last record", async () => {
    // test-bids' last record came the night of Nov 4 (its Nov 5 night was a refusal); marked
    // not read at noon on Nov 5, its feeds changed then, and say so (Atom updated, RSS
    // lastBuildDate).
    await markSource(f.store.db, {
      source: "test-bids",
      reading: false,
      reason: "The clerk asked us to stop while the site is rebuilt",
      by: "operator",
      at: Date.parse("2026-11-05T12:00:00.000Z"),
      night: "2026-11-05",
    });
    const atom = await (await f.app.request("/new.atom?source=test-bids&window=7d")).text();
    expect(atom).toContain("urn:new-on-record:not-read:source:test-bids:");
    const updated = /<updated>([^<]+)<\/updated>/.exec(
      atom.replace(/<entry>[\s\S]*?<\/entry>/g, ""),
    )?.[1];
    expect(updated).toBe("2026-11-05T12:00:00.000Z");
    const rss = await (await f.app.request("/new.rss?source=test-bids&window=7d")).text();
    expect(rss).toContain("<lastBuildDate>Thu, 05 Nov 2026 12:00:00 GMT</lastBuildDate>");
    // Its government's list says one of its two record pages is not read, naming it.
    const $ = load(await (await f.app.request("/new?government=village-of-test")).text());
    const notice = $("#not-read-scope");
    expect(notice.text()).toContain("1 of the 2 record pages here is not read");
    expect(notice.find("a").attr("href")).toBe("/sources/test-bids");
    const feed = await (await f.app.request("/new.json?government=village-of-test")).text();
    expect(feed).toContain("urn:new-on-record:not-read:source:test-bids:");
    expect(feed).toContain(`${ORIGIN}/sources/test-bids`);
  });

  it("a page read says nothing of the kind", async () => {
    const $ = load(await (await f.app.request("/new?source=test-agendas")).text());
    expect($("#not-read-scope").length).toBe(0);
    const feed = await (await f.app.request("/new.atom?source=test-agendas")).text();
    expect(feed).not.toContain("not-read");
  });
});

describe("a feed reader's conditional GET before the directory's first night: 304 while nothing changed", () => {
  // A directory served before its first night (catalog imported, no night run): a feed's
  // `updated` was the clock's time, so its bytes, and its ETag, changed with every request, and a
  // reader polling with If-None-Match got the whole feed again each time, never a 304.
  let dir: string;
  let store: Store;
  let clock = Date.parse("2026-11-05T15:00:00.000Z");
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-tpublic-"));
    await migratedSqliteIn(dir);
    store = await openStore({ kind: "sqlite", dir });
    const c = catalog();
    const origins = {
      governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
    };
    await importCatalog(store.db, c, origins, Date.parse("2026-11-05T12:00:00.000Z"));
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("each feed and the calendar: the same ETag an hour later, and a 304 for it", async () => {
    // The clock moves a minute between requests, as it does between a reader's polls.
    const app = createApp({ db: store.db, now: () => (clock += 60_000), origin: ORIGIN });
    for (const path of [
      "/new.atom",
      "/new.rss",
      "/new.json",
      "/new.atom?county=Summit",
      "/search.atom?q=record",
      "/meetings.ics",
    ]) {
      const first = await app.request(path);
      expect(first.status, path).toBe(200);
      const tag = first.headers.get("etag");
      expect(tag, path).toBeTruthy();
      clock += 3_600_000;
      const again = await app.request(path, { headers: { "If-None-Match": tag ?? "" } });
      expect(again.status, path).toBe(304);
    }
  });

  it("the feed's updated is when the catalog last changed, never the clock's time", async () => {
    const app = createApp({ db: store.db, now: () => (clock += 60_000), origin: ORIGIN });
    const atom = await (await app.request("/new.atom")).text();
    expect(/<updated>([^<]+)<\/updated>/.exec(atom)?.[1]).toBe("2026-11-05T12:00:00.000Z");
  });
});
