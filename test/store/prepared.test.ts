import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { storeFactories } from "./stores.js";

const factories = storeFactories();

/**
 * A query built once (src/store/prepared.ts) runs the same SQL, with the same parameters in the
 * same places, as the builder calls it stands for, on each dialect; its values are bound anew
 * at every run, and the store's driver still maps U+0000 in them (no-nul.ts).
 */
describe.each(factories)("prepared queries: $name", (factory) => {
  const upsert = prepared((db, $: Placeholder<{ url: string; etag: string | null; at: string }>) =>
    db
      .insertInto("validators")
      .values({ url: $("url"), etag: $("etag"), last_modified: null, updated_at: $("at") })
      .onConflict((oc) => oc.column("url").doUpdateSet({ etag: $("etag"), updated_at: $("at") })),
  );
  const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
    db.selectFrom("validators").select(["url", "etag"]).where("url", "=", $("url")),
  );

  it("compiles to the builder's SQL and parameters, and binds each run's values", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const { db } = store;
      const args = { url: "http://a.example/x", etag: '"1"', at: "2026-11-05T00:00:00.000Z" };
      const built = db
        .insertInto("validators")
        .values({ url: args.url, etag: args.etag, last_modified: null, updated_at: args.at })
        .onConflict((oc) => oc.column("url").doUpdateSet({ etag: args.etag, updated_at: args.at }))
        .compile();
      const mine = upsert.compile(db, args);
      expect(mine.sql).toBe(built.sql);
      expect(mine.parameters).toEqual(built.parameters);

      await upsert.run(db, args);
      await upsert.run(db, { ...args, url: "http://b.example/y", etag: null });
      await upsert.run(db, { ...args, etag: '"2"' });
      expect(await byUrl.rows(db, { url: args.url })).toEqual([{ url: args.url, etag: '"2"' }]);
      expect(await byUrl.first(db, { url: "http://b.example/y" })).toEqual({
        url: "http://b.example/y",
        etag: null,
      });
      expect(await byUrl.first(db, { url: "http://c.example/" })).toBeUndefined();
      // Inside a transaction too, and U+0000 still never reaches the store.
      await db.transaction().execute(async (trx) => {
        await upsert.run(trx, { ...args, url: "http://n.example/", etag: '"a\u0000b"' });
      });
      expect(await byUrl.first(db, { url: "http://n.example/" })).toEqual({
        url: "http://n.example/",
        etag: '"a\uFFFDb"',
      });
    } finally {
      await store.close();
    }
  });
});
