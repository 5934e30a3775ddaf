import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { siteOf } from "../../src/policy/site.js";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, catalog, type Fixture, ORIGIN } from "./fixture.js";

/**
 * P26: a feed's time never goes back, whatever takes a page not read out of its notice or brings
 * it back: the page put back in the catalog after it was retired (its notice comes back), its
 * kind of records or its government's county changed by an import (it leaves the selection of
 * `records=` or `county=`), or its address moved off the site whose owner asked. Each made a
 * feed's `updated` go back to its last record's time, before the notice it had shown; a reader
 * that keeps the latest time it saw then takes the feed for unchanged.
 */

let g: Fixture;

const updated = async (path: string) =>
  /<updated>([^<]+)<\/updated>/.exec(
    (await (await g.app.request(path)).text()).replace(/<entry>[\s\S]*?<\/entry>/g, ""),
  )?.[1];

const importAt = (c: Catalog, at: string) =>
  importCatalog(
    g.store.db,
    c,
    {
      governments: new Map(c.governments.map((x) => [x.id, "catalog.yaml"])),
      sources: new Map(c.sources.map((x) => [x.id, "catalog.yaml"])),
    },
    Date.parse(at),
    { allowRetire: true },
  );

const markAt10 = () =>
  markSource(g.store.db, {
    source: "akron-minutes",
    reading: false,
    reason: "Asked again by the clerk",
    by: "operator",
    at: Date.parse("2026-11-06T10:00:00.000Z"),
    night: "2026-11-06",
  });

describe.each(storeFactories())(
  "P26: a feed's time never goes back when a page not read leaves its notice or comes back to it ($name)",
  (factory) => {
    beforeEach(async () => {
      g = await buildFixture(await factory.migrated());
    });
    afterEach(async () => {
      await g?.close();
    });

    it("a page not read retired, then put back: its notice comes back, and the feed's time is then", async () => {
      const path = "/new.atom?county=Summit&window=7d";
      await markAt10();
      expect(await updated(path)).toBe("2026-11-06T10:00:00.000Z");
      const c = catalog();
      await importAt(
        { ...c, sources: c.sources.filter((x) => x.id !== "akron-minutes") },
        "2026-11-06T12:00:00.000Z",
      );
      expect(await updated(path)).toBe("2026-11-06T12:00:00.000Z");
      await importAt(catalog(), "2026-11-06T14:00:00.000Z");
      const atom = await (await g.app.request(path)).text();
      expect(atom).toContain("urn:new-on-record:not-read:source:akron-minutes:");
      expect(await updated(path)).toBe("2026-11-06T14:00:00.000Z");
    });

    it("a page not read whose kind of records an import changed leaves records=minutes' feed then", async () => {
      const path = "/new.atom?records=minutes&window=7d";
      await markAt10();
      expect(await updated(path)).toBe("2026-11-06T10:00:00.000Z");
      const c = catalog();
      await importAt(
        {
          ...c,
          sources: c.sources.map((x) =>
            x.id === "akron-minutes" ? { ...x, records: "agendas" } : x,
          ) as Catalog["sources"],
        },
        "2026-11-06T12:00:00.000Z",
      );
      expect(await (await g.app.request(path)).text()).not.toContain("not-read");
      expect(await updated(path)).toBe("2026-11-06T12:00:00.000Z");
    });

    it("a government whose county an import changed takes its page not read out of the county's feed then", async () => {
      const path = "/new.atom?county=Summit&window=7d";
      await markAt10();
      expect(await updated(path)).toBe("2026-11-06T10:00:00.000Z");
      const c = catalog();
      await importAt(
        {
          ...c,
          governments: c.governments.map((x) =>
            x.id === "city-of-akron" ? { ...x, county: "Portage" } : x,
          ) as Catalog["governments"],
        },
        "2026-11-06T12:00:00.000Z",
      );
      expect(await (await g.app.request(path)).text()).not.toContain("not-read");
      expect(await updated(path)).toBe("2026-11-06T12:00:00.000Z");
    });

    it("a page whose address an import moved off the site whose owner asked leaves the notice then", async () => {
      const path = "/new.atom?county=Summit&window=7d";
      await setSiteRule(g.store.db, {
        site: siteOf("https://evil.example/feed"),
        kind: "not-read",
        reason: "Owner's letter",
        at: Date.parse("2026-11-06T10:00:00.000Z"),
        by: "operator",
      });
      // akron-minutes is read here: only the owner's request is said.
      await markSource(g.store.db, {
        source: "akron-minutes",
        reading: true,
        by: "operator",
        at: Date.parse("2026-11-06T09:00:00.000Z"),
        night: "2026-11-06",
      });
      expect(await updated(path)).toBe("2026-11-06T10:00:00.000Z");
      const c = catalog();
      await importAt(
        {
          ...c,
          sources: c.sources.map((x) =>
            x.id === "evil-notices" ? { ...x, url: "https://township.example/feed" } : x,
          ) as Catalog["sources"],
        },
        "2026-11-06T12:00:00.000Z",
      );
      expect(await (await g.app.request(path)).text()).not.toContain("not-read");
      expect(await updated(path)).toBe("2026-11-06T12:00:00.000Z");
    });

    it("P26, P11: a page whose address moved permanently onto a site whose owner then asked not to be read comes into the notice, and the feed's time is the request's", async () => {
      const path = "/new.atom?county=Summit&window=7d";
      await markSource(g.store.db, {
        source: "akron-minutes",
        reading: true,
        by: "operator",
        at: Date.parse("2026-11-06T09:00:00.000Z"),
        night: "2026-11-06",
      });
      await g.store.db
        .insertInto("source_moves")
        .values({
          source_id: "evil-notices",
          from_url: "https://evil.example/feed",
          to_url: "https://feeds.vendor.example/evil",
          night: "2026-11-05",
        })
        .execute();
      const before = await updated(path);
      expect(before === undefined || before < "2026-11-06T10:00:00.000Z").toBe(true);
      await setSiteRule(g.store.db, {
        site: siteOf("https://feeds.vendor.example/evil"),
        kind: "not-read",
        reason: "Vendor's letter",
        at: Date.parse("2026-11-06T10:00:00.000Z"),
        by: "operator",
      });
      expect(await (await g.app.request(path)).text()).toContain(
        "urn:new-on-record:not-read:source:evil-notices:",
      );
      expect(await updated(path)).toBe("2026-11-06T10:00:00.000Z");
    });
  },
);

describe("P26: the calendar of a record page named (source=) not read says so, whatever the page's kind", () => {
  // The calendar lists a bids page's pre-bid meetings (docs/api.md), so /meetings.ics?source=
  // of a bids page not read selects that page: it said nothing, as if checked and quiet.
  beforeEach(async () => {
    g = await buildFixture();
  });
  afterEach(async () => {
    await g?.close();
  });

  it("/meetings.ics?source=test-bids names test-bids, not read, with why", async () => {
    await markSource(g.store.db, {
      source: "test-bids",
      reading: false,
      reason: "Bids behind a sign-in",
      by: "operator",
      at: Date.parse("2026-11-06T10:00:00.000Z"),
      night: "2026-11-06",
    });
    const ics = (await (await g.app.request("/meetings.ics?source=test-bids")).text()).replace(
      /\r\n[ \t]/g,
      "",
    );
    const desc = /\nX-WR-CALDESC:([^\r\n]*)/.exec(ics)?.[1] ?? "";
    expect(desc).toContain("is not read");
    expect(desc).toContain("Bids behind a sign-in");
    expect(desc).toContain("/sources/test-bids");
    // The whole state's calendar names its pages of meetings and agendas only.
    expect(await (await g.app.request("/meetings.ics")).text()).not.toContain("Bids behind");
  });
});

describe("P26: a feed's or calendar's description names at most 10 pages not read, and says where the rest are", () => {
  // One owner's request on a platform's site (boarddocs.com hosts 549 of the bundled catalog's
  // 632 record pages) made every statewide feed's description, and the calendar's DESCRIPTION
  // and X-WR-CALDESC, name each page: hundreds of kilobytes of text said again in every feed,
  // where each page has an item of its own.
  beforeEach(async () => {
    g = await buildFixture();
  });
  afterEach(async () => {
    await g?.close();
  });

  it("12 pages of City of Akron not read: the description names 10, says 13 and links the list; 10 items of a page each and one for the 3 more", async () => {
    const c = catalog();
    const more = Array.from({ length: 12 }, (_, i) => ({
      ...(c.sources.find((x) => x.id === "evil-notices") as Catalog["sources"][number]),
      id: `akron-notices-${i}`,
      government: "city-of-akron",
      url: `https://akron.example/notices-${i}.rss`,
      name: `Notices ${i}`,
    }));
    await importAt({ ...c, sources: [...c.sources, ...more] }, "2026-11-06T08:00:00.000Z");
    let i = 0;
    for (const x of more)
      await markSource(g.store.db, {
        source: x.id,
        reading: false,
        reason: `Reason ${x.id}`,
        by: "operator",
        at: Date.parse("2026-11-06T10:00:00.000Z") + 1000 * i++,
        night: "2026-11-06",
      });
    const atom = await (await g.app.request("/new.atom?county=Summit")).text();
    const subtitle = /<subtitle[^>]*>([^<]*)<\/subtitle>/.exec(atom)?.[1] ?? "";
    expect(subtitle).toContain("13 of the 14 record pages here are not read");
    expect(subtitle.match(/\/sources\//g)?.length).toBe(10);
    expect(subtitle).toContain("and 3 more");
    expect(subtitle).toContain(`${ORIGIN}/new?county=Summit`);
    // 10 items of a page each, then one for the 3 more (P26: a feed lists its newest, as records).
    expect(atom.match(/urn:new-on-record:not-read:source:/g)?.length).toBe(10);
    const moreItem =
      /<entry>(?:(?!<\/entry>)[\s\S])*?urn:new-on-record:not-read:more:[\s\S]*?<\/entry>/.exec(
        atom,
      )?.[0] ?? "";
    expect(moreItem).toContain("Not read: 3 more record pages");
    expect(moreItem).toContain(`${ORIGIN}/new?county=Summit`);
    const ics = (
      await (await g.app.request("/meetings.ics?county=Summit&records=notices")).text()
    ).replace(/\r\n[ \t]/g, "");
    const desc = /\nX-WR-CALDESC:([^\r\n]*)/.exec(ics)?.[1] ?? "";
    expect(desc.match(/\/sources\//g)?.length).toBe(10);
    expect(desc).toContain("and 2 more");
  });

  it("the item for the pages past the first 10 keeps its id while they stay as they are, and takes a new one when one of them is read again; the search's feed alike", async () => {
    const c = catalog();
    const more = Array.from({ length: 13 }, (_, i) => ({
      ...(c.sources.find((x) => x.id === "evil-notices") as Catalog["sources"][number]),
      id: `akron-notices-${String(i).padStart(2, "0")}`,
      government: "city-of-akron",
      url: `https://akron.example/notices-${i}.rss`,
      name: `Notices ${i}`,
    }));
    await importAt({ ...c, sources: [...c.sources, ...more] }, "2026-11-06T08:00:00.000Z");
    const at = Date.parse("2026-11-06T10:00:00.000Z");
    for (const [i, x] of more.entries())
      await markSource(g.store.db, {
        source: x.id,
        reading: false,
        reason: `Reason ${x.id}`,
        by: "operator",
        at: at + 1000 * i,
        night: "2026-11-06",
      });
    const ids = async (path: string) =>
      [
        ...(await (await g.app.request(path)).text()).matchAll(
          /urn:new-on-record:not-read:[^<"]+/g,
        ),
      ].map((m) => m[0]);
    for (const path of ["/new.atom?county=Summit", "/search.json?q=notices&county=Summit"]) {
      const first = await ids(path);
      expect(first.filter((i) => i.includes(":not-read:source:"))).toHaveLength(10);
      const moreIds = first.filter((i) => i.includes(":not-read:more:"));
      expect(moreIds).toHaveLength(1);
      expect(await ids(path)).toEqual(first);
    }
    const before = (await ids("/new.atom?county=Summit")).find((i) => i.includes(":more:"));
    // The last page, one of the rest, read again: the rest changed, so their item is new.
    await markSource(g.store.db, {
      source: "akron-notices-12",
      reading: true,
      reason: "Read again",
      by: "operator",
      at: at + 60_000,
      night: "2026-11-06",
    });
    const after = await ids("/new.atom?county=Summit");
    expect(after.filter((i) => i.includes(":not-read:source:"))).toHaveLength(10);
    const moreAfter = after.find((i) => i.includes(":more:"));
    expect(moreAfter).toBeDefined();
    expect(moreAfter).not.toBe(before);
  });
});

describe("P26: the feed's item for the pages past the first 10, when one page is past them", () => {
  it("11 pages not read: the item for the 1 more says one page (Not read: 1 more record page; it is not read, nothing from it)", async () => {
    const { notReadFeedItems, NEW_HERE, SEARCH_HERE } = await import(
      "../../src/web/public/not-read.js"
    );
    const pages = Array.from({ length: 11 }, (_, i) => ({
      id: `page-${String(i).padStart(2, "0")}`,
      name: `Page ${i}`,
      reason: "the site's owner asked not to be read",
      since: "2026-11-06T10:00:00.000Z",
    }));
    for (const here of [NEW_HERE, SEARCH_HERE]) {
      const items = notReadFeedItems({ pages, of: 20 }, ORIGIN, here, "/new");
      expect(items).toHaveLength(11);
      const more = items[10];
      expect(more?.id).toMatch(/^urn:new-on-record:not-read:more:/);
      expect(more?.title).toBe("Not read: 1 more record page");
      expect(more?.text).toMatch(
        /^1 more record page here is not read, so nothing (from it|it posts)/,
      );
      expect(more?.text).not.toContain("them");
      expect(more?.text).not.toContain("pages");
      // The feed's description alike: the one past the first 10 is "1 more", not "each" of them.
      const { notReadText } = await import("../../src/web/public/not-read.js");
      const said = notReadText({ pages, of: 20 }, ORIGIN, here, "/new");
      expect(said).toContain(`; and 1 more, named with why at ${ORIGIN}/new.`);
    }
  });
});
