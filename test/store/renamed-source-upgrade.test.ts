import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { leftAt, storeFactories } from "./stores.js";

const factories = storeFactories();
const AT = "2026-11-01T06:00:00.000Z";

describe.each(factories)("P6: a store left at migration 026 with renames ($name)", (f) => {
  it("P6: migration 027 says where a renamed id went, and records let go of an id first listed under that is back in use (no two share a feed entry name)", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "026-record-first-source", async (db) => {
      await sql`insert into governments (id, name, kind, county, website, entry, catalog_file, first_seen_at, updated_at, retired_at)
        values ('g', 'G', 'city', null, null, '{}', 'c.yaml', ${AT}, ${AT}, null)`.execute(db);
      const src = (id: string, retired: string | null) =>
        sql`insert into sources (id, government_id, records, url, access, platform, name, confirmed, entry, catalog_file, first_seen_at, updated_at, retired_at)
          values (${id}, 'g', 'agendas', 'https://example.gov/a', 'html', null, null, 0, '{}', 'c.yaml', ${AT}, ${AT}, ${retired})`.execute(
          db,
        );
      await src("a", AT); // renamed to b under 026
      await src("b", null);
      await src("c", null); // c renamed to d, then c put back under 026 (D1)
      await src("d", null);
      await src("e", AT); // plain retirement
      const rec = (s: string, id: string, first: string | null) =>
        sql`insert into records (source_id, record_id, title, date, url, kind, first_seen_night, first_seen_at, already_listed, first_id, first_source_id)
          values (${s}, ${id}, ${id}, null, null, null, '2026-10-01', ${AT}, 0, null, ${first})`.execute(
          db,
        );
      await rec("b", "x1", "a");
      await rec("b", "x2", null);
      await rec("d", "y1", "c");
      await rec("c", "y1", null);
      await rec("e", "z1", null);
    });
    const store = await openStore(loc);
    try {
      const rows = await store.db
        .selectFrom("sources")
        .select(["id", "renamed_to"])
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: "a", renamed_to: "b" },
        { id: "b", renamed_to: null },
        { id: "c", renamed_to: null },
        { id: "d", renamed_to: null },
        { id: "e", renamed_to: null },
      ]);
      // D1 under 026: records of d and c share the feed entry name urn:…:record:c:y1.
      const names = await store.db
        .selectFrom("records")
        .select((eb) => eb.fn.coalesce("first_source_id", "source_id").as("n"))
        .select("record_id")
        .where("record_id", "=", "y1")
        .execute();
      const distinct = new Set(names.map((r) => `${r.n}:${r.record_id}`));
      expect(distinct.size).toBe(2);
    } finally {
      await store.close();
    }
  });
});
