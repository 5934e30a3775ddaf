import { describe, expect, it } from "vitest";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, catalog } from "../web/fixture.js";

/**
 * revmark (review of bded8c7e, migration 037 made_at): a feed's notice item for a page not read
 * is named `urn:new-on-record:not-read:source:ID:SINCE`, and "the page marked again is a new
 * item" (docs/api.md, Feeds). SINCE became the time the mark's host gave it (made_at), which,
 * unlike `at` (marks_pk: one a source and time), two marks of one source can share: two marks
 * sent at once from two processes with the same clock reading (test/store/mark-order.test.ts),
 * or a host whose clock stepped back onto the first's time. The second, a new decision with
 * another reason, is then kept 1 ms after the first (markAt) and shown at its own time: its
 * item had the first's id, so a feed reader holding the first never showed the new reason.
 */
const factories = storeFactories();
const T = Date.parse("2026-11-05T16:00:00.000Z");

async function noticeItems(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request("/new.json?source=test-bids");
  expect(res.status).toBe(200);
  const j = (await res.json()) as { items: { id: string; content_text: string }[] };
  return j.items.filter((i) => i.id.startsWith("urn:new-on-record:not-read:"));
}

/** The id of the one item for the pages past the first 10 of a feed. */
async function moreItemId(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request("/new.json?county=Summit");
  expect(res.status).toBe(200);
  const j = (await res.json()) as { items: { id: string }[] };
  const more = j.items.filter((i) => i.id.startsWith("urn:new-on-record:not-read:more:"));
  expect(more).toHaveLength(1);
  return more[0]?.id;
}

describe.each(factories)("revmark: a page marked again is a new notice item ($name)", (f) => {
  it("P24, P26: a page marked not read again (another reason) by a second process with the same clock reading is a new notice item in its feed, shown at that time", async () => {
    const loc = await f.migrated();
    const fx = await buildFixture(loc);
    try {
      const first = await markSource(fx.store.db, {
        source: "test-bids",
        reading: false,
        reason: "the clerk asked us to wait",
        by: "dana",
        at: T,
        night: "2026-11-05",
      });
      expect(first.kind).toBe("marked");
      const before = await noticeItems(fx.app);
      expect(before).toHaveLength(1);
      expect(before[0]?.content_text).toContain("the clerk asked us to wait");
      // Another process on the same store, its clock reading the very same millisecond.
      const other = await openStore(loc);
      try {
        const second = await markSource(other.db, {
          source: "test-bids",
          reading: false,
          reason: "the page now needs a sign-in",
          by: "sam",
          at: T,
          night: "2026-11-05",
        });
        expect(second.kind).toBe("marked");
      } finally {
        await other.close();
      }
      const after = await noticeItems(fx.app);
      expect(after).toHaveLength(1);
      expect(after[0]?.content_text).toContain("the page now needs a sign-in");
      // Shown at its own host's time (P24, migration 037)...
      expect(Date.parse((after[0] as unknown as { date_published: string }).date_published)).toBe(
        T,
      );
      // ...and a new item: a reader keeping items by id is told of the new reason.
      expect(after[0]?.id).not.toBe(before[0]?.id);
    } finally {
      await fx.close();
    }
  });

  it("P24, P26: one of the pages past a feed's first 10 marked not read again (another reason) by a second process with the same clock reading makes their one item a new item", async () => {
    const loc = await f.migrated();
    const fx = await buildFixture(loc);
    try {
      const c = catalog();
      const more = Array.from({ length: 12 }, (_, i) => ({
        ...(c.sources.find((x) => x.id === "evil-notices") as Catalog["sources"][number]),
        id: `akron-notices-${i}`,
        government: "city-of-akron",
        url: `https://akron.example/notices-${i}.rss`,
        name: `Notices ${i}`,
      }));
      const all = { ...c, sources: [...c.sources, ...more] };
      await importCatalog(
        fx.store.db,
        all,
        {
          governments: new Map(all.governments.map((x) => [x.id, "catalog.yaml"])),
          sources: new Map(all.sources.map((x) => [x.id, "catalog.yaml"])),
        },
        T - 3_600_000,
        { allowRetire: true },
      );
      for (const [i, x] of more.entries())
        expect(
          (
            await markSource(fx.store.db, {
              source: x.id,
              reading: false,
              reason: `Reason ${x.id}`,
              by: "dana",
              at: T + 1000 * i,
              night: "2026-11-05",
            })
          ).kind,
        ).toBe("marked");
      // akron-minutes and ten of these named; akron-notices-7, -8 and -9 are the 3 more.
      const before = await moreItemId(fx.app);
      const other = await openStore(loc);
      try {
        const again = await markSource(other.db, {
          source: "akron-notices-9",
          reading: false,
          reason: "the clerk wrote again",
          by: "sam",
          at: T + 9000,
          night: "2026-11-05",
        });
        expect(again.kind).toBe("marked");
      } finally {
        await other.close();
      }
      expect(await moreItemId(fx.app)).not.toBe(before);
    } finally {
      await fx.close();
    }
  });
});
