import { type CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { recordsAfterQuery } from "../../src/store/read/directory.js";
import { changedQuery } from "../../src/store/read/new-records.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * The records download on PostgreSQL, a page at a time in key order (keyset paging, LIMIT):
 * each page walks the key index from the last key, whatever the records filter. The filter by
 * the kind each record is shown as (its own kind, else its page's) was one expression over
 * records and sources, which PostgreSQL estimates at half a percent of the rows whatever the
 * kind: it sorted every record after the key for each page (a seq scan and a sort of the whole
 * table per 2,000 rows), so `records.csv?records=minutes` read the table once per page. Proved
 * by EXPLAIN on a store whose statistics are those of a real one (ANALYZE), never by timing.
 */
const KINDS = ["bids", "agendas", "minutes", "permits", "notices", "meetings", "other"];
const COUNTIES = ["Franklin", "Summit", "Erie", "Lake", "Wood"];
const SOURCES = 300;
const RECORDS = 200_000;
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
let store: Store;

beforeAll(async () => {
  if (!factory) return;
  store = await openStore(await factory.migrated());
  const govs = Array.from(
    { length: 30 },
    (_, i) => `  - { id: g${i}, name: G ${i}, kind: city, county: ${COUNTIES[i % 5]} }`,
  );
  const srcs = Array.from(
    { length: SOURCES },
    (_, i) =>
      `  - { id: s${i}, government: g${i % 30}, records: ${KINDS[i % 7]}, access: feed, url: "https://x${i}.example/f.rss" }`,
  );
  const cat = parseCatalog(
    `governments:\n${govs.join("\n")}\nsources:\n${srcs.join("\n")}\n`,
    "catalog.yaml",
  );
  const at = Date.parse("2026-11-05T15:00:00.000Z");
  await importCatalog(
    store.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    at - 400 * 86_400_000,
  );
  // A fifth of the records name their own kind (an Agenda Center's minutes), some in capitals.
  await sql`insert into records (source_id, record_id, title, date, url, kind, first_seen_night, first_seen_at, already_listed)
    select 's' || (i % ${SOURCES}), 'r' || i, 'title ' || i, null, null,
      case when i % 5 = 0 then 'minutes' when i % 7 = 0 then 'Agendas' else null end,
      '2026-11-05', '2026-11-05T06:00:00.000Z', 0
    from generate_series(0, ${RECORDS - 1}) as i`.execute(store.db);
  await sql`analyze`.execute(store.db);
}, 120_000);
afterAll(async () => {
  await store?.close();
  await factory?.cleanup();
});

async function plan(q: { compile(): CompiledQuery }): Promise<string> {
  const c = q.compile();
  const r = await store.db.executeQuery<{ "QUERY PLAN": string }>({
    ...c,
    sql: `explain ${c.sql}`,
  });
  return r.rows.map((x) => x["QUERY PLAN"]).join("\n");
}

describe.skipIf(!postgresUrl)("the records download's pages on PostgreSQL", () => {
  for (const records of [undefined, "minutes", "agendas", "other"]) {
    it(`a page${records ? ` narrowed to records=${records}` : ""} is read in key order from the key index, never by sorting the records after its key`, async () => {
      for (const after of [undefined, { sourceId: "s1", recordId: "r1" }]) {
        const p = await plan(recordsAfterQuery(store.db, after, records ? { records } : {}, 2000));
        // In key order from the key index (of all records, or of each page's, pages in order).
        expect(p).toMatch(
          /Index Scan using records_pk on records r|Index Cond: \(+source_id = s\.id\)/,
        );
        expect(p).not.toMatch(/Seq Scan on records/);
        expect(p).not.toMatch(/(?<!Incremental )Sort {2}\(/);
      }
    });
  }
});

describe.skipIf(!postgresUrl)(
  "the records brought up to date in a window on PostgreSQL (P6)",
  () => {
    it("are sought by when they changed (records_changed), never by the look-back's nights", async () => {
      // A few hundred of the 200,000 records new on Nov 5 changed on Nov 20–21.
      await sql`update records set changed_at = '2026-11-2' || (i % 2) || 'T07:00:00.000Z'
      from (select generate_series(0, 299) as i) x
      where source_id = 's' || (x.i % ${SOURCES}) and record_id = 'r' || x.i`.execute(store.db);
      await sql`analyze records`.execute(store.db);
      const range = { from: "2026-11-20", to: "2026-11-21" };
      for (const f of [{}, { county: "Franklin" }, { records: "bids" }]) {
        const p = await plan(
          changedQuery(store.db, range, { start: "2026-11-20T06:00:00.000Z" }, f, 100),
        );
        expect(p).toMatch(/records_changed/);
        expect(p).not.toMatch(/Seq Scan on records/);
      }
    });
  },
);
