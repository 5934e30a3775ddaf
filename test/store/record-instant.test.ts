import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { type Db, openStore, type Store } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { insertRecords } from "../../src/store/night-records.js";
import { newestRecords } from "../../src/store/read/directory.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { search, searchTerms } from "../../src/store/read/search.js";
import { writeTxn } from "../../src/store/write-txn.js";
import { leftAt, type StoreFactory, storeFactories } from "./stores.js";

/**
 * A record's instant (migration 018) is the store's to work out from its date as it is written:
 * whatever text a date is, the record is kept (a date the rules cannot read orders with the
 * undated, never refuses the insert), and a store from before the column gets it for the
 * records it already holds.
 */
const T = "2026-11-04T05:00:00.000Z";
const ODD = [
  "now",
  "",
  "2026-02-30",
  "2026-11-04T25:00:00Z",
  "2026-12-31T23:59:60Z",
  // An offset of 23 hours: no place on Earth has one (SQLite reads none over 14).
  "9999-12-31T23:59:59+23:59",
  "0000-01-01",
  "2026-11-04T19:00:00+99:99",
  // Not a form the readers write (no T, no zone), though SQLite's julianday would read it.
  "2026-11-04 19:00",
  "2026-13-01",
  // A fraction PostgreSQL's double precision would take as 0 and refuse (a review found it),
  // a 24th hour SQLite reads as the next day's midnight, a space before the zone it skips.
  `2026-11-04T10:00:00.${"0".repeat(330)}1Z`,
  "2026-11-04T24:00:00Z",
  "2026-11-04T10:00:00 Z",
  // A fraction of 10 digits: more than either reads (an outside tester found SQLite reading it).
  "2026-11-28T19:00:00.1234567890Z",
];
const GOOD = [
  { id: "day", date: "2026-11-04" },
  // 8 pm on Nov 3 in Ohio: before the bare day Nov 4, which begins there (05:00 UTC).
  { id: "eve", date: "2026-11-03T20:00:00-05:00" },
  // 04:59:59 UTC: before the day begins in Ohio.
  { id: "utc", date: "2026-11-04T04:59:59Z" },
  { id: "next", date: "2026-11-04T05:00:01.5Z" },
];

function result(records: { id: string; date: string | null }[]): SourceResult {
  return {
    sourceId: "s",
    outcome: { kind: "ok" },
    records: records.map((r) => ({
      id: r.id,
      title: `Agenda ${r.id}`,
      ...(r.date === null ? {} : { date: r.date }),
    })),
    validators: [],
    flags: [],
    startedAt: Date.parse(T),
    endedAt: Date.parse(T),
  };
}

/** The government and source the records belong to (the directory's reads join them). */
async function catalogRows(db: Kysely<unknown>): Promise<void> {
  await sql`insert into governments (id, name, kind, county, website, entry, catalog_file, first_seen_at, updated_at)
    values ('g', 'Village of Instant', 'village', 'Franklin', null, '{}', 'test', ${T}, ${T})`.execute(
    db,
  );
  await sql`insert into sources (id, government_id, records, url, access, platform, name, confirmed, entry, catalog_file, first_seen_at, updated_at)
    values ('s', 'g', 'agendas', 'https://instant.example/agendas', 'page', null, 'Agendas', 1, '{}', 'test', ${T}, ${T})`.execute(
    db,
  );
}

/** The ids of the records a search finds, on its first page (20), in its order. */
async function recordsFound(db: Db, q: string): Promise<string[]> {
  const r = await search(db, searchTerms(q), {}, { page: 1, perPage: 20, others: 0 });
  return r.records.map((x) => x.recordId);
}

/** `fn` over a store left at 017 (after `fill`), then opened: upgraded by 018. */
async function upgraded(
  factory: StoreFactory,
  fill: (db: Kysely<unknown>) => Promise<void>,
  fn: (store: Store) => Promise<void>,
): Promise<void> {
  const loc = await factory.fresh();
  await leftAt(loc, "017-night-user-agent", fill);
  const store = await openStore(loc);
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

const factories = storeFactories();

describe.each(factories)("a record's instant ($name)", (factory) => {
  it("P6: records with dates of any text are all kept; what no rule reads orders with the undated", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const odd = ODD.map((date, i) => ({ id: `odd-${i}`, date }));
      const all = [...GOOD, ...odd, { id: "none", date: null }];
      const n = await writeTxn(store.db, (tx) => insertRecords(tx, "2026-11-04", result(all)));
      expect(n.fresh + n.listed).toBe(all.length);
      const ids = (await newestRecords(store.db, "s", 50)).map((r) => r.recordId);
      expect(ids).toHaveLength(all.length);
      // The readable ones newest first (Feb 30 read as both read it, Mar 2; the year 0 last), then
      // the undated and the unreadable together by id: the same order on both dialects.
      expect(ids).toEqual([
        ...["next", "day", "utc", "eve", "odd-2", "odd-6"],
        ...["none", "odd-0", "odd-1", "odd-10", "odd-11", "odd-12", "odd-13", "odd-3", "odd-4"],
        "odd-5",
        ...["odd-7", "odd-8", "odd-9"],
      ]);
    } finally {
      await store.close();
    }
  });

  it("P6: a store from before the column orders the records it held by their instants once opened, and finds them as before", async () => {
    const loc = await factory.fresh();
    await leftAt(loc, "017-night-user-agent", async (db) => {
      await catalogRows(db);
      for (const r of [...GOOD, { id: "none", date: null }])
        await sql`insert into records (source_id, record_id, title, date, first_seen_night, first_seen_at)
          values ('s', ${r.id}, ${`Agenda ${r.id}`}, ${r.date}, '2026-11-04', ${T})`.execute(db);
    });
    const store = await openStore(loc);
    try {
      const ids = (await newestRecords(store.db, "s", 50)).map((r) => r.recordId);
      expect(ids).toEqual(["next", "day", "utc", "eve", "none"]);
      // The full-text index still names each record (SQLite: the table made anew kept rowids).
      const found = (q: string) => recordsFound(store.db, q).then((ids) => ids.sort());
      expect(await found("agenda eve")).toEqual(["eve"]);
      expect(await found("agenda")).toHaveLength(5);
      // And follows what is written after: a record added is found, one removed is not.
      await writeTxn(store.db, (tx) =>
        insertRecords(tx, "2026-11-05", result([{ id: "later", date: "2026-11-05" }])),
      );
      expect(await found("later")).toEqual(["later"]);
      expect((await newestRecords(store.db, "s", 1)).map((r) => r.recordId)).toEqual(["later"]);
      await store.db.deleteFrom("records").where("record_id", "=", "eve").execute();
      expect(await found("eve")).toEqual([]);
    } finally {
      await store.close();
    }
  });

  // SQLite only: PostgreSQL adds its columns in place; SQLite makes the table anew.
  it.runIf(factory.name === "sqlite")(
    "a view and a trigger an operator put on records are there after the upgrade, and work",
    async () => {
      const loc = await factory.fresh();
      await leftAt(loc, "017-night-user-agent", async (db) => {
        await catalogRows(db);
        await sql`create view recent_titles as select record_id, title from records`.execute(db);
        await sql`create table seen_log (record_id text)`.execute(db);
        await sql`create trigger operator_seen after insert on records begin
        insert into seen_log values (new.record_id); end`.execute(db);
        await sql`insert into records (source_id, record_id, title, date, first_seen_night, first_seen_at)
        values ('s', 'old', 'Agenda old', '2026-11-01', '2026-11-01', ${T})`.execute(db);
      });
      const store = await openStore(loc);
      try {
        await writeTxn(store.db, (tx) =>
          insertRecords(tx, "2026-11-04", result([{ id: "new", date: "2026-11-04" }])),
        );
        const view = await sql<{
          record_id: string;
        }>`select record_id from recent_titles order by record_id`.execute(store.db);
        expect(view.rows.map((r) => r.record_id)).toEqual(["new", "old"]);
        const log = await sql<{ record_id: string }>`select record_id from seen_log`.execute(
          store.db,
        );
        expect(log.rows.map((r) => r.record_id)).toEqual(["old", "new"]);
      } finally {
        await store.close();
      }
    },
  );

  it("records of the same instant and first seen together are in byte order of their ids, whatever the database's collation", async () => {
    const loc = await factory.fresh();
    await leftAt(loc, "017-night-user-agent", async (db) => {
      await catalogRows(db);
      // A PostgreSQL made with a language's collation (en-US) orders `a_b` before `ZED`.
      if (loc.kind === "postgres") {
        await sql`alter table records alter column source_id type text collate "en-US-x-icu"`.execute(
          db,
        );
        await sql`alter table records alter column record_id type text collate "en-US-x-icu"`.execute(
          db,
        );
      }
    });
    const store = await openStore(loc);
    try {
      const ids = ["a_b", "ZED", "Zed", "é", "b"];
      // One title for all: a search finds them equally well.
      const same = result(ids.map((id) => ({ id, date: "2026-11-04" })));
      same.records = same.records.map((r) => ({ ...r, title: "Levy agenda" }));
      await writeTxn(store.db, (tx) => insertRecords(tx, "2026-11-04", same));
      // As if the source had been read on a night before: these are new on record.
      await store.db.updateTable("records").set({ already_listed: 0 }).execute();
      const bytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(bytes).toEqual(["ZED", "Zed", "a_b", "b", "é"]);
      expect((await newestRecords(store.db, "s", 10)).map((r) => r.recordId)).toEqual(bytes);
      expect(await recordsFound(store.db, "agenda")).toEqual(bytes);
      const fresh = await newRecords(store.db, { from: "2026-11-04", to: "2026-11-04" }, {});
      expect(fresh.items.map((r) => r.recordId)).toEqual(bytes);
    } finally {
      await store.close();
    }
  });

  it("a search finds the same records on both stores: words joined by punctuation or inside a tag are words, and Latin letters with a diacritic are folded", async () => {
    await upgraded(factory, catalogRows, async (store) => {
      const titles: Record<string, string> = {
        file: "Minutes_2026_12_01.pdf",
        dated: "Agenda 12-01-2026.pdf",
        resolution: "Resolution No. 2026-15",
        mail: "Write to clerk@testville.gov",
        version: "Zoning code v1.5 release",
        resume: "Résumé of café hours",
        ecole: "ÉCOLE café",
        viet: "Nguyễn Văn report",
        tag: "Road <Phase 2> work",
        entity: "AT&amp;T franchise",
        toma: "Toma hearing",
        tomas: "Tomáš Novák appointment",
      };
      const r = result(Object.keys(titles).map((id) => ({ id, date: "2026-11-04" })));
      r.records = r.records.map((x) => ({ ...x, title: titles[x.id] as string }));
      await writeTxn(store.db, (tx) => insertRecords(tx, "2026-11-04", r));
      const hits = (q: string) => recordsFound(store.db, q).then((ids) => ids.sort());
      expect(await hits("pdf")).toEqual(["dated", "file"]);
      expect(await hits("2026")).toEqual(["dated", "file", "resolution"]);
      expect(await hits("15")).toEqual(["resolution"]);
      expect(await hits("12 01")).toEqual(["dated", "file"]);
      expect(await hits("testville gov")).toEqual(["mail"]);
      expect(await hits("v1")).toEqual(["version"]);
      expect(await hits("cafe")).toEqual(["ecole", "resume"]);
      expect(await hits("café")).toEqual(["ecole", "resume"]);
      expect(await hits("ecole")).toEqual(["ecole"]);
      expect(await hits("resume caf")).toEqual(["resume"]);
      expect(await hits("nguyen")).toEqual(["viet"]);
      expect(await hits("phase 2")).toEqual(["tag"]);
      expect(await hits("amp franchise")).toEqual(["entity"]);
      // A plural's singular is made from the word as typed, then folded, as FTS5 does.
      expect(await hits("tomáš")).toEqual(["tomas"]);
      expect(await hits("tomáš hearing")).toEqual([]);
    });
  });

  it("a search finds the same governments and sources on both stores, diacritics folded and punctuation splitting words", async () => {
    await upgraded(factory, catalogRows, async (store) => {
      await sql`insert into governments (id, name, kind, county, website, entry, catalog_file, first_seen_at, updated_at)
        values ('town-of-zoe', 'Town of Zoë', 'township', 'Franklin', null, '{}', 'test', ${T}, ${T})`.execute(
        store.db,
      );
      await sql`insert into sources (id, government_id, records, url, access, platform, name, confirmed, entry, catalog_file, first_seen_at, updated_at)
        values ('town-of-zoe-minutes', 'town-of-zoe', 'minutes', 'https://zoe.example/minutes', 'page', null, 'Minutes_Archive.pdf list', 1, '{}', 'test', ${T}, ${T})`.execute(
        store.db,
      );
      const found = async (q: string) => {
        const r = await search(store.db, searchTerms(q), {}, { page: 1, perPage: 20, others: 5 });
        return { governments: r.governments.map((g) => g.id), sources: r.sources.map((x) => x.id) };
      };
      expect(await found("zoe")).toEqual({
        governments: ["town-of-zoe"],
        sources: ["town-of-zoe-minutes"],
      });
      expect(await found("archive")).toEqual({ governments: [], sources: ["town-of-zoe-minutes"] });
      expect((await found("zoë minutes")).sources).toEqual(["town-of-zoe-minutes"]);
    });
  });

  it("P6: what is new on a night lists records first seen together newest first by their instants", async () => {
    await upgraded(factory, catalogRows, async (store) => {
      await writeTxn(store.db, (tx) => insertRecords(tx, "2026-11-04", result(GOOD)));
      // As if the source had been read on a night before: these are new on record.
      await store.db.updateTable("records").set({ already_listed: 0 }).execute();
      const items = await newRecords(store.db, { from: "2026-11-04", to: "2026-11-04" }, {});
      // By their text "utc" (…T04:59:59Z) and "next" would come after "day" (2026-11-04).
      expect(items.items.map((r) => r.recordId)).toEqual(["next", "day", "utc", "eve"]);
    });
  });
});
