import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { siteOf } from "../../src/policy/site.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { clearSiteRules, setSiteRule } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { migratedSqliteIn, storeFactories } from "../store/stores.js";
import { catalog, ORIGIN } from "./fixture.js";

/**
 * Found by the reviewer `rev1` of the P26 notices (cec2e5c, d340a4d, 8ce9417): what a feed
 * reader, which keeps every item it has seen by its id, is shown as the pages of one selection
 * are marked not read and read again, before the directory's first night (no record, no night:
 * the feed's time is its catalog's and its notices').
 */

const T0 = Date.parse("2026-11-05T12:00:00.000Z");
let dir: string;
let store: Store;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-notread-items-"));
  await migratedSqliteIn(dir);
  store = await openStore({ kind: "sqlite", dir });
  const c = catalog();
  const origins = {
    governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
    sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
  };
  await importCatalog(store.db, c, origins, T0);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const app = () =>
  createApp({ db: store.db, now: () => Date.parse("2026-11-06T15:00:00.000Z"), origin: ORIGIN });

const mark = async (source: string, reading: boolean, at: string, reason?: string) => {
  const o = await markSource(store.db, {
    source,
    reading,
    ...(reason ? { reason } : {}),
    by: "operator",
    at: Date.parse(at),
    night: at.slice(0, 10),
  });
  expect(o.kind, source).toBe("marked");
};

/** A JSON Feed's items as a reader keeps them: id, title, text. */
async function items(path: string) {
  const res = await app().request(path);
  expect(res.status, path).toBe(200);
  const j = (await res.json()) as { items: { id: string; title: string; content_text: string }[] };
  return j.items;
}

/** An Atom feed's own <updated> (not an entry's). */
async function atomUpdated(path: string) {
  const atom = await (await app().request(path)).text();
  return /<updated>([^<]+)<\/updated>/.exec(atom.replace(/<entry>[\s\S]*?<\/entry>/g, ""))?.[1];
}

describe("P26: a government's feed holds one not-read notice item a page, each keeping its id while its page stays not read", () => {
  // Village of Test has two record pages, test-agendas and test-bids. One notice item naming
  // both, its id made of both, was a new item when the second was marked: a reader holding the
  // first (test-bids alone) then showed two notices of test-bids, and when test-agendas was read
  // again the feed's item was test-bids' first one again (an id the reader already had).
  const feed = "/new.json?government=village-of-test";

  it("the second page marked adds an item of its own; the first page's item is unchanged", async () => {
    await mark("test-bids", false, "2026-11-05T13:00:00.000Z", "The clerk asked us to wait");
    const first = await items(feed);
    expect(first.map((i) => i.id)).toEqual([
      "urn:new-on-record:not-read:source:test-bids:2026-11-05T13%3A00%3A00.000Z",
    ]);
    await mark("test-agendas", false, "2026-11-05T14:00:00.000Z", "The feed moved; finding it");
    const second = await items(feed);
    // Every item the reader has seen that names test-bids is one item: the same id as before.
    const seen = new Map([...first, ...second].map((i) => [i.id, i]));
    const ofBids = [...seen.values()].filter((i) => i.id.includes("test-bids"));
    expect(ofBids.length).toBe(1);
    expect(second.map((i) => i.id).sort()).toEqual([
      "urn:new-on-record:not-read:source:test-agendas:2026-11-05T14%3A00%3A00.000Z",
      "urn:new-on-record:not-read:source:test-bids:2026-11-05T13%3A00%3A00.000Z",
    ]);
    // Each item speaks of its own page (its title, its reason), never of the other.
    for (const i of second) {
      const mine = i.id.includes("test-bids") ? "wait" : "finding it";
      const other = i.id.includes("test-bids") ? "finding it" : "wait";
      expect(i.content_text).toContain(mine);
      expect(i.content_text).not.toContain(other);
    }
    // The page still says both, in one notice.
    const $ = load(await (await app().request("/new?government=village-of-test")).text());
    expect($("#not-read-scope").text()).toContain("Both record pages here are not read");
  });

  it("one read again: its item goes, the other's stays as it was; the feed says it changed then", async () => {
    const before = await items(feed);
    await mark("test-agendas", true, "2026-11-05T16:00:00.000Z");
    const after = await items(feed);
    expect(after.map((i) => i.id)).toEqual([
      "urn:new-on-record:not-read:source:test-bids:2026-11-05T13%3A00%3A00.000Z",
    ]);
    expect(after[0]).toEqual(before.find((i) => i.id === after[0]?.id));
    expect(await atomUpdated("/new.atom?government=village-of-test")).toBe(
      "2026-11-05T16:00:00.000Z",
    );
  });
});

describe("P26: a feed whose page is read again drops its notice and says it changed then, never earlier", () => {
  // akron-minutes marked not read at 13:00 (the feed's updated then 13:00), read again at
  // 17:00: the notice left the feed, whose updated went back to the catalog's 12:00, before
  // the notice it had shown (RSS lastBuildDate alike), as if nothing had changed since.
  const q = "?source=akron-minutes";

  it("updated is the time it was read again (Atom updated, RSS lastBuildDate)", async () => {
    await mark("akron-minutes", false, "2026-11-05T13:00:00.000Z", "Asked for a sign-in");
    expect(await atomUpdated(`/new.atom${q}`)).toBe("2026-11-05T13:00:00.000Z");
    const tag = (await app().request(`/new.atom${q}`)).headers.get("etag") ?? "";
    await mark("akron-minutes", true, "2026-11-05T17:00:00.000Z");
    const res = await app().request(`/new.atom${q}`, { headers: { "If-None-Match": tag } });
    expect(res.status).toBe(200);
    const atom = await res.text();
    expect(atom).not.toContain("not-read");
    expect(await atomUpdated(`/new.atom${q}`)).toBe("2026-11-05T17:00:00.000Z");
    const rss = await (await app().request(`/new.rss${q}`)).text();
    expect(rss).toContain("<lastBuildDate>Thu, 05 Nov 2026 17:00:00 GMT</lastBuildDate>");
  });
});

describe.each(storeFactories())(
  "P26: a site's owner's no, asked and lifted, on each store ($name): its notice item comes and goes, the feed's time never back",
  (factory) => {
    // The same over SQLite and PostgreSQL (the SQL that reads when the owners' requests changed).
    let s: Store;
    beforeAll(async () => {
      s = await openStore(await factory.migrated());
      const c = catalog();
      const origins = {
        governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
        sources: new Map(c.sources.map((x) => [x.id, "catalog.yaml"])),
      };
      await importCatalog(s.db, c, origins, T0);
    });
    afterAll(async () => {
      await s?.close();
    });

    it("asked at 13:00, lifted at 18:00: the item, then none, updated 13:00 then 18:00", async () => {
      const a = createApp({ db: s.db, now: () => T0 + 86_400_000, origin: ORIGIN });
      const site = siteOf("https://akron.example/minutes");
      const feed = "/new.json?government=city-of-akron";
      const updated = async () => {
        const atom = await (await a.request("/new.atom?government=city-of-akron")).text();
        return /<updated>([^<]+)<\/updated>/.exec(
          atom.replace(/<entry>[\s\S]*?<\/entry>/g, ""),
        )?.[1];
      };
      expect(await updated()).toBe("2026-11-05T12:00:00.000Z");
      await setSiteRule(s.db, {
        site,
        kind: "not-read",
        reason: "<b>Please</b> stop & wait",
        at: Date.parse("2026-11-05T13:00:00.000Z"),
        by: "operator",
      });
      const j = (await (await a.request(feed)).json()) as {
        items: { id: string; title: string }[];
      };
      expect(j.items.map((i) => i.id)).toEqual([
        "urn:new-on-record:not-read:source:akron-minutes:2026-11-05T13%3A00%3A00.000Z",
      ]);
      expect(await updated()).toBe("2026-11-05T13:00:00.000Z");
      const api = (await (await a.request("/api/new?government=city-of-akron")).json()) as {
        notRead: { reason: string }[];
      };
      expect(api.notRead[0]?.reason).toContain("<b>Please</b> stop & wait");
      const $ = load(await (await a.request("/new?government=city-of-akron")).text());
      expect($("#not-read-scope .reason").text()).toContain("<b>Please</b> stop & wait");
      expect($("#not-read-scope b").length).toBe(0);
      await clearSiteRules(s.db, {
        site,
        kind: "not-read",
        at: Date.parse("2026-11-05T18:00:00.000Z"),
        by: "operator",
      });
      const after = (await (await a.request(feed)).json()) as { items: unknown[] };
      expect(after.items).toEqual([]);
      expect(await updated()).toBe("2026-11-05T18:00:00.000Z");
    });
  },
);

describe("P26: /api/new's notRead as served validates against /api/openapi.json", () => {
  it("a government with a page not read, and that page, each validate (closed schemas)", async () => {
    const a = app();
    const doc = (await (await a.request("/api/openapi.json")).json()) as {
      paths: Record<
        string,
        { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const schema = doc.paths["/api/new"]?.get.responses["200"]?.content["application/json"]?.schema;
    const v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    for (const url of ["/api/new?government=village-of-test", "/api/new?source=test-bids"]) {
      const body = (await (await a.request(url)).json()) as { notRead: { source: string }[] };
      expect(
        body.notRead.map((x) => x.source),
        url,
      ).toEqual(["test-bids"]);
      const r = v.safeParse(body);
      expect(
        r.success,
        `${url}: ${r.success ? "" : JSON.stringify(r.error.issues.slice(0, 3))}`,
      ).toBe(true);
    }
  });
});
