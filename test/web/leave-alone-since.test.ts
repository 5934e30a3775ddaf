import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sayLeftAlone } from "../../src/night/left-alone.js";
import { statusRows } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { importYaml } from "./catalog-store.js";

/**
 * P26, P18: a page two ways of which two owner's requests leave alone, one set days before the
 * other. Until the second one the nights asked its other way and read it (P4); it has been
 * unread only since the second request, which is the one that left it so. The directory said
 * "not read since" the first one, in the first one's words (a request that left a way alone
 * that the night never needed while the other was asked).
 */
const CATALOG = `
governments:
  - { id: village-of-x, name: Village of X, kind: village, county: Franklin }
sources:
  - id: x-agendas
    government: village-of-x
    records: agendas
    access: feed
    url: https://www.x.gov/feeds/agendas.rss
    alternates: [{ access: feed, url: "https://www.x.gov/agendas/list.rss" }]
`;

const NOV1 = Date.parse("2026-11-01T15:00:00.000Z");
const NOV6 = Date.parse("2026-11-06T15:00:00.000Z");

type Status = { reading: boolean; reason: string | null; since: string | null };

describe("P26: since when a page two requests leave alone is not read", () => {
  let dir: string | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P26, P18: a page whose first feed was left alone on Nov 1 and whose other feed on Nov 6 says not read since Nov 6, in the words of the later request; before Nov 6 it says read", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-leave-alone-since-"));
    store = await openStore({ kind: "sqlite", dir });
    await importYaml(store.db, CATALOG, Date.parse("2026-10-30T12:00:00.000Z"));
    const app = createApp({ db: store.db, now: () => NOV6 + 86_400_000 });
    const status = async () => {
      const res = await app.request("/api/sources/x-agendas");
      expect(res.status).toBe(200);
      return ((await res.json()) as { status: Status }).status;
    };
    await setSiteRule(store.db, {
      site: "x.gov",
      kind: "leave-alone",
      value: "/feeds/",
      reason: "feeds, Nov 1",
      at: NOV1,
      by: "op",
    });
    expect((await status()).reading).toBe(true);
    await setSiteRule(store.db, {
      site: "x.gov",
      kind: "leave-alone",
      value: "/agendas/",
      reason: "agendas, Nov 6",
      at: NOV6,
      by: "op",
    });
    const s = await status();
    expect(s.reading).toBe(false);
    expect(s.since).toBe(new Date(NOV6).toISOString());
    expect(s.reason).toBe("the site's owner asked for /agendas/ to be left alone (agendas, Nov 6)");
  });

  it("P26, P18: a page said not read is said read again as soon as a catalog import or a move makes one of its ways asked, however often it was asked before (each asking reads what the page is now)", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-leave-alone-since-"));
    store = await openStore({ kind: "sqlite", dir });
    const db = store.db;
    await importYaml(db, CATALOG, Date.parse("2026-10-30T12:00:00.000Z"));
    const app = createApp({ db, now: () => NOV6 + 86_400_000 });
    const reading = async () => {
      const res = await app.request("/api/sources/x-agendas");
      expect(res.status).toBe(200);
      return ((await res.json()) as { status: Status }).status.reading;
    };
    for (const value of ["/feeds/", "/agendas/"])
      await setSiteRule(db, {
        site: "x.gov",
        kind: "leave-alone",
        value,
        reason: "r",
        at: NOV1,
        by: "op",
      });
    // Asked several times: the same answer each time.
    for (let i = 0; i < 3; i++) expect(await reading()).toBe(false);
    // The catalog now lists its other feed under /calendar/: asked, so read.
    await importYaml(
      db,
      CATALOG.replace("/agendas/list.rss", "/calendar/list.rss"),
      Date.parse("2026-11-08T12:00:00.000Z"),
    );
    expect(await reading()).toBe(true);
    // Back under /agendas/: not read; its feed's address moved permanently out of /feeds/: read.
    await importYaml(db, CATALOG, Date.parse("2026-11-09T12:00:00.000Z"));
    expect(await reading()).toBe(false);
    await db
      .insertInto("source_moves")
      .values({
        source_id: "x-agendas",
        from_url: "https://www.x.gov/feeds/agendas.rss",
        to_url: "https://www.x.gov/rss/agendas.rss",
        night: "2026-11-09",
      })
      .execute();
    expect(await reading()).toBe(true);
  });

  it("P26, P11: a page whose address moved permanently onto a site whose owner asked not to be read (the nights ask it only there, and are refused by the request) says not read in the owner's words, in the API, its notice on /api/new and nor status; a page of its old site that did not move stays read", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-leave-alone-since-"));
    store = await openStore({ kind: "sqlite", dir });
    const db = store.db;
    await importYaml(
      db,
      `${CATALOG}
  - id: x-bids
    government: village-of-x
    records: bids
    access: feed
    url: https://www.x.gov/bids.rss
`,
      Date.parse("2026-10-30T12:00:00.000Z"),
    );
    await db
      .insertInto("source_moves")
      .values({
        source_id: "x-agendas",
        from_url: "https://www.x.gov/feeds/agendas.rss",
        to_url: "https://x.vendor.com/feeds/agendas.rss",
        night: "2026-11-02",
      })
      .execute();
    // Its other way in moved there too: no way of it is asked anywhere else.
    await db
      .insertInto("source_moves")
      .values({
        source_id: "x-agendas",
        from_url: "https://www.x.gov/agendas/list.rss",
        to_url: "https://x.vendor.com/agendas/list.rss",
        night: "2026-11-02",
      })
      .execute();
    await setSiteRule(db, {
      site: "vendor.com",
      kind: "not-read",
      reason: "vendor, Nov 6",
      at: NOV6,
      by: "op",
    });
    const app = createApp({ db, now: () => NOV6 + 86_400_000 });
    const status = async (id: string) => {
      const res = await app.request(`/api/sources/${id}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { status: Status }).status;
    };
    const words = "the site's owner asked not to be read (vendor, Nov 6)";
    expect(await status("x-agendas")).toEqual({
      reading: false,
      reason: words,
      since: new Date(NOV6).toISOString(),
    });
    expect((await status("x-bids")).reading).toBe(true);
    const news = await app.request("/api/new");
    expect(news.status).toBe(200);
    const notice = ((await news.json()) as { notRead?: { source: string; reason: string }[] })
      .notRead;
    expect(notice?.map((p) => [p.source, p.reason])).toEqual([["x-agendas", words]]);
    const rows = await sayLeftAlone(db, await statusRows(db), NOV6 + 86_400_000);
    expect(rows.find((r) => r.id === "x-agendas")?.siteNotRead).toBe(words);
    expect(rows.find((r) => r.id === "x-bids")?.siteNotRead).toBeUndefined();
  });
});
