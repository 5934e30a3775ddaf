import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { NightStore } from "../../src/night/ports.js";
import type { PageReads, ValidatorStore, WayReader } from "../../src/night/reader.js";
import type { SourceHistory, SourceResult } from "../../src/night/types.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { openStore, type Store } from "../../src/store/db.js";
import { PAGE_READ, SOURCE_TURN, SqlNightStore } from "../../src/store/night-store.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";
import { postgresFactory, postgresUrl, sqliteFactory, storeFactories } from "./stores.js";

/**
 * The contract of `pageRead` over every store (memory, SQLite, PostgreSQL): a page's last full
 * read is known with whether the store still holds every record that read produced, so a 304
 * is counted from it only then (P8, P12). Records removed since (by hand here: no command of
 * ours deletes one) are brought back by extracting the stored copy in full; the site is asked
 * nothing but the conditional request.
 */
const factories = storeFactories();

const SRC = "a.gov/0";
const URL_ = "https://a.gov/list";
const T0 = Date.parse("2026-11-05T06:00:00Z");

type Under = {
  store: NightStore & Required<Pick<NightStore, "pageRead">>;
  /** Deletes a record the way a person would: straight from the store. */
  remove(sourceId: string, id: string): Promise<void>;
  /** The store's SQL handle (undefined for memory). */
  sql?: Store;
  close(): Promise<void>;
};
type Maker = { name: string; make(): Promise<Under> };
const makers: Maker[] = [
  {
    name: "memory",
    make: async () => {
      const store = new MemoryNightStore();
      return {
        store,
        remove: async (s, id) => void store.records.get(s)?.delete(id),
        close: async () => {},
      };
    },
  },
  ...factories.map(
    (f): Maker => ({
      name: f.name,
      make: async () => {
        const s = await openStore(await f.migrated());
        return {
          store: new SqlNightStore(s.db),
          sql: s,
          remove: async (source, id) =>
            void (await s.db
              .deleteFrom("records")
              .where("source_id", "=", source)
              .where("record_id", "=", id)
              .execute()),
          close: () => s.close(),
        };
      },
    }),
  ),
];

function result(ids: string[], page: string[] | undefined, end = T0 + 500): SourceResult {
  const r: SourceResult = {
    sourceId: SRC,
    outcome: { kind: "ok", url: URL_ },
    records: ids.map((id) => ({ id, title: `item ${id}` })),
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: end,
  };
  if (page) r.pageRead = { url: URL_, key: "k1", records: page.length, ids: [...new Set(page)] };
  return r;
}

describe.each(makers)("page reads and the records they produced ($name)", (maker) => {
  let u: Under | undefined;
  afterEach(async () => {
    await u?.close();
    u = undefined;
  });

  it("P8, P12: every record of the read stored: known as all stored; one removed: not; the read's records stored again: all stored again", async () => {
    u = await maker.make();
    // The source holds an older record besides the page's three: a count cannot tell.
    await u.store.commit("2026-11-04", result(["older"], undefined));
    await u.store.commit("2026-11-05", result(["a", "b", "c"], ["a", "b", "c"]));
    expect(await u.store.pageRead(SRC, URL_)).toEqual({
      url: URL_,
      key: "k1",
      records: 3,
      allStored: true,
    });
    expect(await u.store.pageRead(SRC, "https://a.gov/other")).toBeUndefined();
    await u.remove(SRC, "b");
    expect(await u.store.pageRead(SRC, URL_)).toMatchObject({ records: 3, allStored: false });
    // Another source's record of the same id does not stand in for it.
    await u.store.commit("2026-11-05", { ...result(["b"], undefined), sourceId: "a.gov/1" });
    expect((await u.store.pageRead(SRC, URL_))?.allStored).toBe(false);
    // The copy read in full the next night: its records stored again with the read.
    const again = await u.store.commit("2026-11-06", result(["a", "b", "c"], ["a", "b", "c"]));
    expect(again.newRecords).toBe(1);
    expect((await u.store.pageRead(SRC, URL_))?.allStored).toBe(true);
  });

  it("P8, P12: a page listing a record twice, an id with NUL or a lone surrogate, or no records at all: all stored when they are", async () => {
    u = await maker.make();
    const odd = ["x\u0000y", "lone\ud800", "dup", "dup", "ünï 𝄞"];
    await u.store.commit("2026-11-05", result(odd, odd));
    expect(await u.store.pageRead(SRC, URL_)).toMatchObject({ records: 5, allStored: true });
    await u.remove(SRC, u.sql ? "x\uFFFDy" : "x\u0000y");
    expect((await u.store.pageRead(SRC, URL_))?.allStored).toBe(false);
    const empty = result([], []);
    empty.sourceId = "a.gov/2";
    await u.store.commit("2026-11-05", empty);
    expect(await u.store.pageRead("a.gov/2", URL_)).toMatchObject({ records: 0, allStored: true });
  });

  it("P7: holdsAny: the source holds one of the ids (an odd id as it was read too); none, none given, or another source's: not", async () => {
    u = await maker.make();
    const store = u.store as NightStore & Required<Pick<NightStore, "holdsAny">>;
    await u.store.commit("2026-11-05", result(["a", "x\u0000y"], undefined));
    expect(await store.holdsAny(SRC, ["z", "a"])).toBe(true);
    expect(await store.holdsAny(SRC, ["x\u0000y"])).toBe(true);
    expect(await store.holdsAny(SRC, ["z"])).toBe(false);
    expect(await store.holdsAny(SRC, [])).toBe(false);
    expect(await store.holdsAny("a.gov/1", ["a"])).toBe(false);
    // More ids than one statement asks: the held one is found all the same.
    const many = [...Array.from({ length: 450 }, (_, i) => `n${i}`), "a"];
    expect(await store.holdsAny(SRC, many)).toBe(true);
  });

  it("P7: holdsAny before a night: only a record first seen on an earlier night counts (an overflow carried over ends at one); one seen that night or later does not", async () => {
    u = await maker.make();
    const store = u.store as NightStore & Required<Pick<NightStore, "holdsAny">>;
    await u.store.commit("2026-11-05", result(["a"], undefined));
    await u.store.commit("2026-11-06", result(["a", "b"], undefined));
    await u.store.commit("2026-11-07", result(["a", "b", "c"], undefined));
    expect(await store.holdsAny(SRC, ["b", "c"], "2026-11-06")).toBe(false);
    expect(await store.holdsAny(SRC, ["b", "c"], "2026-11-07")).toBe(true);
    expect(await store.holdsAny(SRC, ["a"], "2026-11-06")).toBe(true);
    expect(await store.holdsAny(SRC, ["a"], "2026-11-05")).toBe(false);
    expect(await store.holdsAny(SRC, ["z"], "2026-12-01")).toBe(false);
    // Without `before`: any held record.
    expect(await store.holdsAny(SRC, ["c"])).toBe(true);
  });

  it("P7: holdsLike before a night: only a record first seen on an earlier night counts (an overflow carried over: a day's records alike are not the list's older ones)", async () => {
    u = await maker.make();
    const store = u.store as NightStore & Required<Pick<NightStore, "holdsLike">>;
    const r = result(["a"], undefined);
    r.records = [
      { id: "a", title: "Legal Notice", date: "2026-11-02", url: "http://a.gov/d/a.pdf" },
    ];
    await u.store.commit("2026-11-06", r);
    const alike = [{ title: "Legal Notice", date: "2026-11-02", url: "http://a.gov/d/b.pdf" }];
    expect(await store.holdsLike(SRC, alike, "2026-11-06")).toBe(false);
    expect(await store.holdsLike(SRC, alike, "2026-11-07")).toBe(true);
    expect(await store.holdsLike(SRC, alike)).toBe(true);
  });

  it("P7: holdsLike: a record held by its look (its link written another way, or its day and title) under another id; none such, or another source's: not", async () => {
    u = await maker.make();
    const store = u.store as NightStore & Required<Pick<NightStore, "holdsLike">>;
    const r = result(["a"], undefined);
    r.records = [
      { id: "a", title: "Council  Meeting", date: "2026-11-02", url: "http://a.gov/d/a.pdf" },
    ];
    await u.store.commit("2026-11-05", r);
    // Files moved: a new link, the same day and title (case and spacing aside).
    expect(
      await store.holdsLike(SRC, [
        { title: "COUNCIL MEETING", date: "2026-11-02T18:00:00-05:00", url: "https://a.gov/f/a" },
      ]),
    ).toBe(true);
    // Its link written under https and www.
    expect(await store.holdsLike(SRC, [{ title: "x", url: "https://www.a.gov/d/a.pdf" }])).toBe(
      true,
    );
    // Another day, another link: not held.
    expect(
      await store.holdsLike(SRC, [
        { title: "Council Meeting", date: "2026-11-09", url: "https://a.gov/d/b.pdf" },
      ]),
    ).toBe(false);
    expect(await store.holdsLike(SRC, [])).toBe(false);
    expect(await store.holdsLike("a.gov/1", [{ title: "x", url: "http://a.gov/d/a.pdf" }])).toBe(
      false,
    );
  });

  it("P7: heldLike: for each record, whether it is held by its look (each judged alone), before a night; a day and title two held records share is no record's look", async () => {
    u = await maker.make();
    const store = u.store as NightStore & Required<Pick<NightStore, "heldLike">>;
    const r = result(["a", "n1", "n2"], undefined);
    r.records = [
      { id: "a", title: "Council Meeting", date: "2026-11-02", url: "http://a.gov/d/a.pdf" },
      { id: "n1", title: "Legal Notice", date: "2026-11-02", url: "http://a.gov/d/n1.pdf" },
      { id: "n2", title: "Legal Notice", date: "2026-11-02", url: "http://a.gov/d/n2.pdf" },
    ];
    await u.store.commit("2026-11-05", r);
    const shown = [
      { title: "COUNCIL MEETING", date: "2026-11-02", url: "https://a.gov/f/a" },
      { title: "Budget Hearing", date: "2026-11-02", url: "https://a.gov/f/b" },
      { title: "x", url: "https://www.a.gov/d/a.pdf" },
      { title: "Legal Notice", date: "2026-11-02", url: "https://a.gov/f/n3" },
    ];
    expect(await store.heldLike(SRC, shown)).toEqual([true, false, true, false]);
    expect(await store.heldLike(SRC, shown, "2026-11-06")).toEqual([true, false, true, false]);
    expect(await store.heldLike(SRC, shown, "2026-11-05")).toEqual([false, false, false, false]);
    expect(await store.heldLike(SRC, [])).toEqual([]);
  });

  it.runIf(maker.name !== "memory")(
    "P8, P12: the page reads read at the source's turn (sourceTurn, one statement with sourceNow) answer as pageRead does then, for every address its list was read at; a source done tonight is handed none",
    async () => {
      u = await maker.make();
      const store = u.store as SqlNightStore;
      const other = "https://a.gov/list?view=all";
      const asked = [URL_, other, "https://a.gov/none"];
      const same = async (night: string) => {
        const turn = await store.sourceTurn(night, SRC);
        expect(turn).toMatchObject(await store.sourceNow(night, SRC));
        for (const url of asked)
          expect(await turn.pageReads?.pageRead(SRC, url), url).toEqual(
            await store.pageRead(SRC, url),
          );
        return turn;
      };
      // None read yet.
      expect((await same("2026-11-04")).pageReads).toBeDefined();
      await u.store.commit("2026-11-03", result(["older"], undefined));
      await u.store.commit("2026-11-04", {
        ...result(["o1", "o2"], undefined),
        sourceId: SRC,
        pageRead: { url: other, key: "k2", records: 2, ids: ["o1", "o2"] },
      });
      await u.store.commit("2026-11-05", result(["a", "b", "c"], ["a", "b", "c"]));
      // Done tonight: nothing is asked, nothing handed on.
      expect((await store.sourceTurn("2026-11-05", SRC)).pageReads).toBeUndefined();
      const turn = await same("2026-11-06");
      expect(await turn.pageReads?.pageRead(SRC, other)).toMatchObject({ key: "k2", records: 2 });
      expect(await turn.pageReads?.pageRead(SRC, URL_)).toMatchObject({ key: "k1", records: 3 });
      await u.remove(SRC, "b");
      await same("2026-11-06");
      // What was read at the turn: the check that follows counts from it (no statement).
      expect(await turn.pageReads?.pageRead(SRC, URL_)).toMatchObject({ allStored: true });
      // Another source's asked of the store.
      await u.store.commit("2026-11-05", { ...result(["x"], ["x"]), sourceId: "a.gov/1" });
      expect(await turn.pageReads?.pageRead("a.gov/1", URL_)).toEqual(
        await store.pageRead("a.gov/1", URL_),
      );
      // A read kept before its ids were (migration 014).
      await u.sql?.db.updateTable("page_reads").set({ ids: null }).execute();
      await same("2026-11-06");
    },
  );

  it.runIf(maker.name !== "memory")(
    "P8, P12: a read kept before its ids were (migration 014) is never counted: its page is read in full once",
    async () => {
      u = await maker.make();
      await u.store.commit("2026-11-05", result(["a"], ["a"]));
      await u.sql?.db.updateTable("page_reads").set({ ids: null }).execute();
      expect(await u.store.pageRead(SRC, URL_)).toMatchObject({ records: 1, allStored: false });
    },
  );
});

/** The two statements a 304 is counted by: alone (pageRead), and at the source's turn. */
const countedBy = [
  {
    name: "PAGE_READ",
    compile: (db: Store["db"], sourceId: string, url: string) =>
      PAGE_READ.compile(db, { sourceId, url }),
  },
  {
    name: "SOURCE_TURN",
    compile: (db: Store["db"], sourceId: string) =>
      SOURCE_TURN.compile(db, { night: "2026-11-06", sourceId }),
  },
];

describe.each(countedBy)("the check on the 304's path (SQLite, $name)", (counted) => {
  it("P8, P12: one statement, each of the read's ids found by the records primary key, no scan of the source's records", async () => {
    const f = sqliteFactory();
    const loc = await f.fresh();
    const s = await openStore(loc);
    const { sql, parameters } = counted.compile(s.db, "a", "b");
    await s.close();
    const db = new Database(join((loc as { dir: string }).dir, "nor.db"), { readonly: true });
    try {
      const plan = db.prepare(`explain query plan ${sql}`).all(...parameters) as {
        detail: string;
      }[];
      const details = plan.map((p) => p.detail).join("\n");
      expect(details).toMatch(/SEARCH pr USING INDEX sqlite_autoindex_page_reads_1/);
      expect(details).toMatch(
        /SEARCH r USING (COVERING )?INDEX sqlite_autoindex_records_1 \(source_id=\? AND record_id=\?\)/,
      );
      expect(details).not.toMatch(/SCAN (r|pr)\b/);
    } finally {
      db.close();
      await f.cleanup();
    }
  });
});

describe.runIf(postgresUrl).each(countedBy)(
  "the check on the 304's path (PostgreSQL, $name)",
  (counted) => {
    it("P8, P12: one statement, the read's ids looked up in the records primary key together, not the source's records hashed", async () => {
      const f = postgresFactory(postgresUrl as string);
      const s = await openStore(await f.migrated());
      try {
        // A source with 2,000 records, its page listing 20 of them; statistics as a night leaves.
        await sql`insert into records (source_id, record_id, title, first_seen_night, first_seen_at)
        select 's', 'https://a.gov/r/' || i, 't', '2026-11-05', '2026-11-05T06:00:00Z'
        from generate_series(1, 2000) as i`.execute(s.db);
        const ids = JSON.stringify(
          Array.from({ length: 20 }, (_, i) => `https://a.gov/r/${i + 1}`),
        );
        await sql`insert into page_reads (source_id, url, key, records, night, ids)
        values ('s', 'u', 'k', 20, '2026-11-05', ${ids})`.execute(s.db);
        await sql`analyze records`.execute(s.db);
        await sql`analyze page_reads`.execute(s.db);
        const q = counted.compile(s.db, "s", "u");
        const plan = await s.db.executeQuery<{ "QUERY PLAN": string }>({
          ...q,
          sql: `explain ${q.sql}`,
        });
        const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(text).toMatch(/Index (Only )?Scan using records_pk on records r/);
        expect(text).toMatch(/Index Cond: \(\(source_id = pr\.source_id\) AND \(record_id = ANY/);
        expect(text).not.toMatch(/Hash Join|Seq Scan on records/);
        expect(await new SqlNightStore(s.db).pageRead("s", "u")).toMatchObject({ allStored: true });
      } finally {
        await s.close();
        await f.cleanup();
      }
    });
  },
);

/** A real loopback server answering 304 to its ETag, a real fetcher, each store. */
describe.each(makers)(
  "a 304 of the page last read in full, from a real server ($name)",
  (maker) => {
    let h: Harness | undefined;
    let u: Under | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
      await u?.close();
      u = undefined;
    });

    it("P8, P12: an ordinary 304 is counted without extracting; a record of its read removed by hand comes back from the stored copy, the server seeing only the conditional request", async () => {
      h = await harness();
      u = await maker.make();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots(""));
      const BODY = "one,two,three";
      s.route("/list", (req, res) => {
        if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304).end();
        res.writeHead(200, { etag: '"v1"', "content-type": "text/plain" }).end(BODY);
      });
      let extracted = 0;
      const reader: WayReader = {
        firstRequest: (way) => ({ url: way.url }),
        extract: (_way, body) => {
          extracted++;
          const titles = new TextDecoder().decode(body).split(",");
          return { records: titles.map((t) => ({ id: t, title: t })) } as never;
        },
        nextRequest: () => undefined,
      };
      let etag: string | undefined;
      const validators: ValidatorStore = {
        get: async () => (etag ? { etag } : undefined),
        storedCopy: async (url) =>
          etag
            ? { url, body: new TextEncoder().encode(BODY), contentType: "text/plain" }
            : undefined,
      };
      const source = {
        id: SRC,
        government: "g",
        url: s.url("/list"),
        access: "page",
        alternates: [],
        backfill: { pagesPerNight: 0 },
      } as unknown as Source;
      const store = u.store;
      const pageReads: PageReads = { pageRead: (id, url) => store.pageRead(id, url) };
      const harnessed = h;
      let day = 4;
      const night = async () => {
        const n = `2026-11-${String(++day).padStart(2, "0")}`;
        const ctx = {
          fetcher: harnessed.fetcher({ night: n }),
          clock: harnessed.clock,
          reader,
          validators,
          pageReads,
        };
        const history: SourceHistory = {
          reading: true,
          unreachedLast: false,
          recentOutcomes: [],
          recordsKnown: 0,
          backfill: { done: true, pagesRead: 0 },
        };
        const r = await checkSource(ctx, source, history);
        const c = await store.commit(n, r);
        return { r, newRecords: c.newRecords };
      };

      const first = await night();
      // Its first read: already listed, not new on record.
      expect(first.newRecords).toBe(0);
      etag = '"v1"';
      expect(extracted).toBe(1);

      const counted = await night();
      expect(counted.r.outcome.kind).toBe("unchanged");
      expect(counted.r.knownRecords).toBe(3);
      expect(extracted).toBe(1);

      await u.remove(SRC, "two");
      const restored = await night();
      expect(restored.r.outcome.kind).toBe("unchanged");
      expect(restored.r.records.map((r) => r.id)).toEqual(["one", "two", "three"]);
      // Stored again, not new on record: the page the site says is unchanged showed it before.
      expect(restored.newRecords).toBe(0);
      expect(extracted).toBe(2);

      const countedAgain = await night();
      expect(countedAgain.r.knownRecords).toBe(3);
      expect(extracted).toBe(2);
      expect(s.hits("/list").map((q) => q.headers["if-none-match"])).toEqual([
        undefined,
        '"v1"',
        '"v1"',
        '"v1"',
      ]);
    });
  },
);
