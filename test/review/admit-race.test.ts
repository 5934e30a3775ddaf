/**
 * Review of 40eb45d: two processes admitting requests to one brand-new site at the same
 * instant (the site_state row is inserted inside the admitting transaction, then locked).
 * Exactly one may go (P9) on PostgreSQL (FOR UPDATE after INSERT … ON CONFLICT DO NOTHING).
 * A guard: it passes on 40eb45d.
 */
import { afterAll, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore, type Store, type StoreLocation } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

// SQLite serialises writers with BEGIN IMMEDIATE by construction; two better-sqlite3
// connections in one test process would block each other's thread, so only PostgreSQL here.
const factories = postgresUrl ? [postgresFactory(postgresUrl)] : [];
it.skipIf(factories.length > 0)("P9: needs NOR_TEST_POSTGRES_URL", () => {});
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

function intent(site: string, path: string): SendIntent {
  const url = `http://${site}${path}`;
  return {
    night: "2026-11-05",
    key: `k-${site}-${path}`,
    method: "GET",
    url,
    site,
    origin: `http://${site}`,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
  };
}

for (const factory of factories) {
  it(`P9 (${factory.name}): two processes admitting to one new site at once: exactly one goes`, async () => {
    const loc: StoreLocation = await factory.fresh();
    const stores: Store[] = [];
    try {
      stores.push(await openStore(loc));
      stores.push(await openStore(loc));
      const [a, b] = stores.map((s) => new SqlJournal(s.db)) as [SqlJournal, SqlJournal];
      const now = Date.UTC(2026, 10, 6, 4, 0, 0);
      for (let i = 0; i < 20; i++) {
        const site = `site${i}.example`;
        const [x, y] = await Promise.all([
          a.admit(intent(site, "/a"), "host-a:1:a", now),
          b.admit(intent(site, "/b"), "host-b:2:b", now),
        ]);
        expect([x.kind, y.kind].sort(), site).toEqual(["go", "wait"]);
      }
    } finally {
      for (const s of stores) await s.close();
    }
  });
}
