import { describe, expect, it } from "vitest";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { Committed, NightStore } from "../../src/night/ports.js";
import type { SourceResult } from "../../src/night/types.js";
import { READ_HORIZON_NIGHTS } from "../../src/policy/first-read.js";
import { addDays } from "../../src/policy/night-date.js";
import { dedupeRecords } from "../../src/sources/record-id.js";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { storeFactories } from "./stores.js";

/**
 * A source is committed once a night, whoever finishes it: a worker whose lane lease ran out
 * while it was paused (and whose lane another worker took over) gets "already", writes nothing,
 * and the night goes on. Records are neither lost nor doubled, on SQLite and PostgreSQL alike.
 */
const factories = storeFactories();

const NIGHT = "2026-11-05";
const T0 = Date.parse("2026-11-05T06:00:00Z");
const DAY = 86_400_000;

function result(records: string[]): SourceResult {
  return {
    sourceId: "a.gov/0",
    outcome: { kind: "ok", url: "https://a.gov/" },
    records: records.map((id) => ({ id, title: `item ${id}` })),
    validators: [],
    flags: [],
    startedAt: T0,
    endedAt: T0 + 500,
  };
}

/** Night `n` after NIGHT opened; its key. */
async function openNightN(store: NightStore, n: number): Promise<string> {
  const key = addDays(NIGHT, n);
  await store.openNight(key, T0 + n * DAY, T0 + n * DAY + 6 * 3600_000);
  return key;
}

/** Sources `id` whose lists are https://ID.gov/list, each its own site. */
async function syncLists(store: NightStore, ids: readonly string[]): Promise<void> {
  await store.syncSources(
    ids.map((id) => ({ id, government: "g", url: `https://${id}.gov/list`, site: `${id}.gov` })),
    T0,
  );
}

/**
 * Each night in turn (NIGHT, the next, …): the source's result for it committed, and said as
 * expected; then how many records the source knows.
 */
async function commitNights<T>(
  store: NightStore,
  sourceId: string,
  nights: readonly (readonly [T, Committed])[],
  src: (x: T) => SourceResult,
): Promise<number | undefined> {
  for (const [i, [x, committed]] of nights.entries()) {
    const n = await openNightN(store, i);
    expect(await store.commit(n, src(x)), n).toEqual(committed);
  }
  return (await store.histories(addDays(NIGHT, 9), [sourceId])).get(sourceId)?.recordsKnown;
}

type Maker = { name: string; make(): Promise<{ store: NightStore; close(): Promise<void> }> };
const makers: Maker[] = [
  { name: "memory", make: async () => ({ store: new MemoryNightStore(), close: async () => {} }) },
  ...factories.map(
    (f): Maker => ({
      name: f.name,
      make: async () => {
        const s = await openStore(await f.migrated());
        return { store: new SqlNightStore(s.db), close: () => s.close() };
      },
    }),
  ),
];

describe.each(makers)("a source committed twice in one night ($name)", (maker) => {
  it("P13: the second commit says already and writes nothing; records are not doubled", async () => {
    const { store, close } = await maker.make();
    try {
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/", site: "a.gov" }],
        T0,
      );
      const [first, second] = await Promise.all([
        store.commit(NIGHT, result(["1", "2"])),
        store.commit(NIGHT, result(["1", "2", "3"])),
      ]);
      expect([first?.already, second?.already].filter(Boolean)).toHaveLength(1);
      const winner = first?.already ? second : first;
      // The source's first read: its records already listed, none new on record.
      expect(winner?.newRecords).toBe(0);
      expect(winner?.alreadyListed).toBeGreaterThanOrEqual(2);
      expect(await store.isDone(NIGHT, "a.gov/0")).toBe(true);
      // The next night commits as usual.
      const next = await store.commit("2026-11-06", result(["1", "2", "3", "4"]));
      expect(next.already).toBeUndefined();
      expect(next.newRecords).toBeGreaterThanOrEqual(1);
      expect(next.alreadyListed).toBeUndefined();
    } finally {
      await close();
    }
  });

  it("P20, P23: a source left checker-offline is not done: a resumed night checks it and its outcome takes the place", async () => {
    const { store, close } = await maker.make();
    try {
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/", site: "a.gov" }],
        T0,
      );
      const offline: SourceResult = {
        ...result([]),
        outcome: { kind: "checker-offline", reason: "the checker could not reach the internet" },
      };
      expect((await store.commit(NIGHT, offline)).already).toBeUndefined();
      expect(await store.isDone(NIGHT, "a.gov/0")).toBe(false);
      const h = await store.histories(NIGHT, ["a.gov/0"]);
      expect(h.get("a.gov/0")?.doneTonight).toBe(false);
      const real = await store.commit(NIGHT, result(["1"]));
      // A checker-offline row read nothing: this is the source's first read.
      expect(real).toEqual({ newRecords: 0, alreadyListed: 1 });
      expect(await store.isDone(NIGHT, "a.gov/0")).toBe(true);
      // The real outcome took the checker-offline row's place, every column of it.
      const after = (await store.histories("2026-11-06", ["a.gov/0"])).get("a.gov/0");
      expect(after?.recentOutcomes).toEqual(["ok"]);
      expect(after?.lastCheckedAt).toBe(T0 + 500);
      expect(after?.lastDurationMs).toBe(500);
    } finally {
      await close();
    }
  });

  it("P7: a source's first read and a backfill's older pages are already listed; what a list shows after its first read is new", async () => {
    const { store, close } = await maker.make();
    const src = (
      id: string,
      records: string[],
      kind: SourceResult["outcome"]["kind"] = "ok",
      url = `https://${id}.gov/list`,
    ): SourceResult => ({
      ...result(records),
      sourceId: id,
      outcome: { kind, url },
      way: { used: { access: "page", url }, skipped: [] },
    });
    const night = (n: number) => openNightN(store, n);
    try {
      await syncLists(store, ["a", "empty", "refused", "moved", "idle", "stopped"]);
      let n = await night(0);
      expect(await store.commit(n, src("a", ["1", "2"]))).toEqual({
        newRecords: 0,
        alreadyListed: 2,
      });
      // A list that showed none is no read of it (a recipe that reads nothing yet), nor is a no.
      expect(await store.commit(n, src("empty", [], "no-records"))).toEqual({ newRecords: 0 });
      expect(await store.commit(n, src("refused", [], "refused"))).toEqual({ newRecords: 0 });
      expect(await store.commit(n, src("moved", ["m1"]))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
      expect(await store.commit(n, src("idle", ["i1"]))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
      // Page 1 read in full, its older page said no (P7: that no is the night's outcome).
      expect(await store.commit(n, src("stopped", ["s1"], "refused"))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
      n = await night(1);
      expect(await store.commit(n, src("stopped", ["s1", "s2"], "refused"))).toEqual({
        newRecords: 1,
      });
      // Page 1 lists 5 (new), 1 and 2 (known); the older pages 9 (listed) and 5 again (page 1's).
      expect(
        await store.commit(n, { ...src("a", ["5", "1", "2", "9", "5"]), olderFrom: 3 }),
      ).toEqual({ newRecords: 1, alreadyListed: 1 });
      expect(await store.commit(n, src("empty", ["x"]))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
      expect(await store.commit(n, src("refused", ["y", "z"]))).toEqual({
        newRecords: 0,
        alreadyListed: 2,
      });
      // Its list moved (another address, or another way in, P4), where it shows no more of what
      // the source held than it does not: read there for the first time.
      expect(
        await store.commit(n, src("moved", ["m1", "m2"], "ok", "https://moved.gov/new")),
      ).toEqual({ newRecords: 0, alreadyListed: 1 });
      n = await night(2);
      expect(
        await store.commit(n, src("moved", ["m1", "m2", "m3"], "ok", "https://moved.gov/new")),
      ).toEqual({ newRecords: 1 });
      expect(await store.commit(n, src("empty", ["x", "x2"]))).toEqual({ newRecords: 1 });
      // Last read longer ago than READ_HORIZON_NIGHTS: what it lists may be from any night since.
      n = await night(READ_HORIZON_NIGHTS + 1);
      expect(await store.commit(n, src("idle", ["i1", "i2"]))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
    } finally {
      await close();
    }
  });

  it("P7: a list read and found empty counts as read for the same reader only: the first bid on a bids page that showed none is new; a list empty to another reader (a recipe mended), or none read, is a first read", async () => {
    const { store, close } = await maker.make();
    const src = (
      id: string,
      records: string[],
      kind: SourceResult["outcome"]["kind"] = "ok",
      reader?: string,
    ): SourceResult => {
      const url = `https://${id}.gov/list`;
      return {
        ...result(records),
        sourceId: id,
        outcome: { kind, url },
        way: { used: { access: "page", url }, skipped: [] },
        ...(reader !== undefined ? { reader } : {}),
      };
    };
    try {
      await syncLists(store, ["bids", "mended", "noreader"]);
      let n = await openNightN(store, 0);
      for (const [id, reader] of [
        ["bids", "r1"],
        ["mended", "broken"],
        ["noreader", undefined],
      ] as const)
        expect(await store.commit(n, src(id, [], "no-records", reader))).toEqual({
          newRecords: 0,
        });
      n = await openNightN(store, 1);
      expect(await store.commit(n, src("bids", ["b1"], "ok", "r1"))).toEqual({ newRecords: 1 });
      expect(await store.commit(n, src("mended", ["m1", "m2"], "ok", "fixed"))).toEqual({
        newRecords: 0,
        alreadyListed: 2,
      });
      expect(await store.commit(n, src("noreader", ["x1"], "ok", "r1"))).toEqual({
        newRecords: 0,
        alreadyListed: 1,
      });
    } finally {
      await close();
    }
  });

  it("P6, P7: nights an earlier build stored (no reader kept) are no reader change: the first night with a reader is no switched night, and a record new that night is new", async () => {
    const { store, close } = await maker.make();
    const url = "https://old.gov/list";
    const src = (rows: readonly (readonly [string, string])[], reader?: string): SourceResult => ({
      ...result([]),
      sourceId: "old",
      records: rows.map(([id, link]) => ({
        id,
        title: `Doc ${id}`,
        date: "2026-11-01",
        url: `https://old.gov/d/${link}`,
      })),
      outcome: { kind: "ok", url },
      way: { used: { access: "page", url }, skipped: [] },
      ...(reader !== undefined ? { reader } : {}),
    });
    try {
      await store.syncSources([{ id: "old", government: "g", url, site: "old.gov" }], T0);
      const known = await commitNights(
        store,
        "old",
        [
          [
            src([
              ["E1", "1"],
              ["E2", "2"],
            ]),
            { newRecords: 0, alreadyListed: 2 },
          ],
          [
            src([
              ["E2", "2"],
              ["E3", "3"],
            ]),
            { newRecords: 1 },
          ],
          // The first night of this build: E9 is a new posting of the file E1 linked (a
          // switched night would take it for E1, read another way).
          [
            src(
              [
                ["E9", "1"],
                ["E3", "3"],
              ],
              "r1",
            ),
            { newRecords: 1 },
          ],
        ],
        (x) => x,
      );
      expect(known).toBe(4);
    } finally {
      await close();
    }
  });

  it("P6, P7: a deploy of the readers' code that reads the same ids: a record new that night is new, though it links what a record no longer listed linked", async () => {
    const { store, close } = await maker.make();
    const url = "https://dep.gov/list";
    const src = (rows: readonly (readonly [string, string])[], reader: string): SourceResult => ({
      ...result([]),
      sourceId: "dep",
      records: rows.map(([id, link]) => ({
        id,
        title: `Agenda ${id}`,
        date: "2026-11-01",
        url: `https://dep.gov/d/${link}`,
      })),
      outcome: { kind: "ok", url },
      way: { used: { access: "page", url }, skipped: [] },
      reader,
    });
    try {
      await store.syncSources([{ id: "dep", government: "g", url, site: "dep.gov" }], T0);
      const known = await commitNights(
        store,
        "dep",
        [
          [
            src(
              [
                ["E1", "current"],
                ["E2", "2"],
                ["E3", "3"],
              ],
              "v1",
            ),
            { newRecords: 0, alreadyListed: 3 },
          ],
          [
            src(
              [
                ["E2", "2"],
                ["E3", "3"],
              ],
              "v1",
            ),
            { newRecords: 0 },
          ],
          // The readers' code deployed: E9 is the next agenda, at the file E1 linked.
          [
            src(
              [
                ["E9", "current"],
                ["E2", "2"],
                ["E3", "3"],
              ],
              "v2",
            ),
            { newRecords: 1 },
          ],
        ],
        (x) => x,
      );
      expect(known).toBe(4);
    } finally {
      await close();
    }
  });

  it("P6, P12: a recipe changed at the same address: a record read under another id is matched by its link, not new nor held twice; a row first found on a 304's copy is already listed", async () => {
    const { store, close } = await maker.make();
    const url = "https://rc.gov/list";
    const src = (
      rows: readonly (readonly [string, string])[],
      reader: string,
      kind: SourceResult["outcome"]["kind"] = "ok",
    ): SourceResult => ({
      ...result([]),
      sourceId: "rc",
      records: rows.map(([id, link]) => ({
        id,
        title: `Bid ${link}`,
        date: "2026-11-01",
        url: `https://rc.gov/bid/${link}`,
      })),
      outcome: { kind, url },
      way: { used: { access: "page", url }, skipped: [] },
      reader,
    });
    const byLink = (l: string) => [`https://rc.gov/bid/${l}`, l] as const;
    try {
      await store.syncSources([{ id: "rc", government: "g", url, site: "rc.gov" }], T0);
      const known = await commitNights(
        store,
        "rc",
        [
          [src([byLink("1"), byLink("2")], "link"), { newRecords: 0, alreadyListed: 2 }],
          [src([byLink("1"), byLink("2"), byLink("3")], "link"), { newRecords: 1 }],
          // The recipe reads the platform's id now: the same three records, and one new.
          [
            src(
              [
                ["B1", "1"],
                ["B2", "2"],
                ["B3", "3"],
                ["B4", "4"],
              ],
              "id",
            ),
            { newRecords: 1 },
          ],
          // Widened, on a page the site answered 304 for: the row it now finds was there.
          [
            src(
              [
                ["B1", "1"],
                ["B2", "2"],
                ["B3", "3"],
                ["B4", "4"],
                ["B9", "9"],
              ],
              "wide",
              "unchanged",
            ),
            { newRecords: 0, alreadyListed: 1 },
          ],
        ],
        (x) => x,
      );
      expect(known).toBe(5);
    } finally {
      await close();
    }
  });

  it("P6: a site that moves its links to https:// (or adds www.) does not make its records new again; what is new among them still is", async () => {
    const { store, close } = await maker.make();
    const url = "https://tls.gov/list";
    const src = (records: string[]): SourceResult => ({
      ...result([]),
      sourceId: "tls",
      records: records.map((id) => ({ id, title: `Agenda ${id.slice(-5)}`, url: id })),
      outcome: { kind: "ok", url },
      way: { used: { access: "page", url }, skipped: [] },
    });
    try {
      await store.syncSources([{ id: "tls", government: "g", url, site: "tls.gov" }], T0);
      const nights = [
        [
          ["http://tls.gov/a.pdf", "http://tls.gov/b.pdf", "http://tls.gov/e.pdf"],
          { newRecords: 0, alreadyListed: 3 },
        ],
        [
          ["http://tls.gov/c.pdf", "http://tls.gov/a.pdf", "http://tls.gov/b.pdf"],
          { newRecords: 1 },
        ],
        // Moved: every link written anew, one record more (d), none of the others new; e, now
        // only on an older page (olderFrom 4), is the same record, not kept twice.
        [
          [
            "https://tls.gov/d.pdf",
            "https://tls.gov/c.pdf",
            "https://tls.gov/a.pdf",
            "https://www.tls.gov/b.pdf",
            "https://tls.gov/e.pdf",
          ],
          { newRecords: 1 },
        ],
        // Both spellings listed at once are two rows of the list: the old one is not taken.
        [
          ["https://tls.gov/d.pdf", "http://tls.gov/d.pdf", "https://tls.gov/c.pdf"],
          { newRecords: 1 },
        ],
      ] as const;
      const known = await commitNights<readonly string[]>(store, "tls", nights, (ids) => {
        const r = src([...ids]);
        if (ids.length === 5) r.olderFrom = 4;
        return r;
      });
      expect(known).toBe(6);
    } finally {
      await close();
    }
  });

  it("P6: a site that moves its files (new paths, a new platform) does not make its records new again when each shows the same title and date; a few links changed, or rows that cannot be told apart, are new", async () => {
    const { store, close } = await maker.make();
    const url = "https://mv.gov/list";
    const rec = (path: string, title: string, date?: string) => ({
      id: `https://mv.gov/${path}`,
      title,
      url: `https://mv.gov/${path}`,
      ...(date ? { date } : {}),
    });
    type Rec = ReturnType<typeof rec>;
    // The page read in full (its records kept with it, as check-source.ts reports it).
    const src = (records: Rec[]): SourceResult => ({
      ...result([]),
      sourceId: "mv",
      records,
      outcome: { kind: "ok", url },
      way: { used: { access: "page", url }, skipped: [] },
      pageRead: {
        url,
        key: `k${records.length}`,
        records: records.length,
        ids: records.map((x) => x.id),
      },
    });
    const C = rec("files/c.pdf", "Agenda");
    const H = [
      rec("files/h1.pdf", "Hearing", "2026-10-01"),
      rec("files/h2.pdf", "Hearing", "2026-10-01"),
    ];
    const moved = [
      rec("docs/Download?id=9", "Minutes", "2026-10-20"),
      rec("docs/Download?id=7", "Agenda", "2026-11-02"),
      rec("docs/Download?id=6", "Parks Board", "2026-10-14"),
      rec("docs/Download?id=2", "Budget Hearing", "2026-10-07"),
      rec("docs/Download?id=5", "Agenda"),
      rec("docs/Download?id=3", "Hearing", "2026-10-01"),
      rec("docs/Download?id=4", "Hearing", "2026-10-01"),
    ];
    const added = rec("docs/Download?id=11", "Agenda", "2026-11-16");
    try {
      await store.syncSources([{ id: "mv", government: "g", url, site: "mv.gov" }], T0);
      const nights: [Rec[], Committed][] = [
        [
          [
            rec("files/a.pdf", "Agenda", "2026-11-02"),
            rec("files/b.pdf", "Minutes", "2026-10-20"),
            rec("files/e.pdf", "Parks Board", "2026-10-14"),
            rec("files/f.pdf", "Budget Hearing", "2026-10-07"),
            C,
            ...H,
          ],
          { newRecords: 0, alreadyListed: 7 },
        ],
        // Moved: every link anew. The four records dated, each shown once, are the same records
        // (four of the seven: a move); the undated Agenda and the two hearings cannot be told
        // apart, and the Agenda of 2026-11-16 is new: four new.
        [[added, ...moved], { newRecords: 4 }],
        // Two rows of seven take new links, showing what two rows gone show: too few for a move
        // (a meeting's minutes posted as its agenda leaves the page): both new.
        [
          [
            added,
            rec("docs/Download?id=20", "Minutes", "2026-10-20"),
            rec("docs/Download?id=21", "Agenda", "2026-11-02"),
            ...moved.slice(2),
          ],
          { newRecords: 2 },
        ],
      ];
      // 7 first read, 4 new on the second night (four kept under their new links), 2 on the third.
      expect(await commitNights(store, "mv", nights, src)).toBe(13);
    } finally {
      await close();
    }
  });

  it("P6: links that change one by one, or after a list unread for weeks, are no move: new; a move found where the list now answers from another address", async () => {
    const { store, close } = await maker.make();
    const rec = (site: string, path: string, title: string, date: string) => ({
      id: `https://${site}/${path}`,
      title,
      url: `https://${site}/${path}`,
      date,
    });
    type Rec = ReturnType<typeof rec>;
    const src = (
      id: string,
      records: Rec[],
      answered = `https://${id}.gov/list`,
    ): SourceResult => ({
      ...result([]),
      sourceId: id,
      records,
      outcome: { kind: "ok", url: `https://${id}.gov/list` },
      way: { used: { access: "page", url: `https://${id}.gov/list` }, skipped: [] },
      pageRead: {
        url: answered,
        key: `k${records.length}`,
        records: records.length,
        ids: records.map((x) => x.id),
      },
    });
    // Four meetings, each row titled by its meeting and dated by it; agendas first.
    const meetings = (site: string, kinds: string[]) =>
      kinds.map((k, i) => rec(site, `${k}-${i}.pdf`, `Council Meeting ${i}`, `2026-10-0${i + 1}`));
    const night = (n: number) => openNightN(store, n);
    try {
      await syncLists(store, ["few", "late", "redirected"]);
      let n = await night(0);
      const agendas = (site: string) => meetings(site, ["agenda", "agenda", "agenda", "agenda"]);
      for (const id of ["few", "late", "redirected"])
        expect(await store.commit(n, src(id, agendas(`${id}.gov`)))).toEqual({
          newRecords: 0,
          alreadyListed: 4,
        });
      n = await night(1);
      // Two meetings' minutes posted in place of their agendas: half the list still the same.
      expect(
        await store.commit(
          n,
          src("few", meetings("few.gov", ["minutes", "minutes", "agenda", "agenda"])),
        ),
      ).toEqual({ newRecords: 2 });
      // The other two lists moved, one of them to another address that now answers for it.
      expect(
        await store.commit(
          n,
          src(
            "redirected",
            meetings("docs.redirected.gov", ["v", "v", "v", "v"]),
            "https://docs.redirected.gov/list",
          ),
        ),
      ).toEqual({ newRecords: 0 });
      // The last list not read for twenty nights (a site down): its four rows replaced since.
      n = await night(20);
      expect(
        await store.commit(
          n,
          src("late", meetings("late.gov", ["minutes", "minutes", "minutes", "minutes"])),
        ),
      ).toEqual({ newRecords: 4 });
      const known = await store.histories(addDays(NIGHT, 30), ["few", "late", "redirected"]);
      expect([...known].map(([id, h]) => [id, h.recordsKnown])).toEqual([
        ["few", 6],
        ["late", 8],
        ["redirected", 4],
      ]);
    } finally {
      await close();
    }
  });

  it("P6: a row whose link comes to be shared by another row, or stops being, keeps its record; a new row on a shared link is new", async () => {
    const { store, close } = await maker.make();
    const url = "https://cal.gov/list";
    const L = "https://cal.gov/calendar";
    const row = (title: string, date: string) => ({ id: L, title, date, url: L });
    const bid = { id: "https://cal.gov/bid.pdf", title: "Bid", url: "https://cal.gov/bid.pdf" };
    const src = (
      rows: { id: string; title: string; date?: string; url: string }[],
    ): SourceResult => ({
      ...result([]),
      sourceId: "cal",
      // The ids a page's reader gives them (record-id.ts): a shared link split by title and date.
      records: dedupeRecords(rows, { splitSharedLinks: true }),
      outcome: { kind: "ok", url },
      way: { used: { access: "page", url }, skipped: [] },
    });
    const oct = row("Council, Oct 1", "2026-10-01");
    const nov = row("Council, Nov 5", "2026-11-05");
    const dec = row("Council, Dec 1", "2026-12-01");
    try {
      await store.syncSources([{ id: "cal", government: "g", url, site: "cal.gov" }], T0);
      const nights = [
        [[oct, bid], { newRecords: 0, alreadyListed: 2 }],
        // Nov 5 added on Oct 1's link: both split; only Nov 5 is new.
        [[nov, oct, bid], { newRecords: 1 }],
        // Nov 5 gone: Oct 1's link its own again, the same record.
        [[oct, bid], { newRecords: 0 }],
        // Dec 1 on the link: new, Oct 1 the same record again.
        [[dec, oct, bid], { newRecords: 1 }],
      ] as const;
      expect(
        await commitNights<readonly Parameters<typeof src>[0][number][]>(
          store,
          "cal",
          nights,
          (rows) => src([...rows]),
        ),
      ).toBe(4);
    } finally {
      await close();
    }
  });

  it("P4, P6: a source read through its page the night its api failed holds each record once; what was new that night is new then, and not again when the api is back; a page of other records, or rows that cannot be told apart, pair nothing", async () => {
    const { store, close } = await maker.make();
    const api = (id: string) => `https://${id}.gov/api/events`;
    const page = (id: string) => `https://${id}.gov/meetings`;
    type Row = [id: string, title: string, date: string, url?: string];
    const src = (id: string, n: number, url: string, rows: Row[]): SourceResult => ({
      ...result([]),
      sourceId: id,
      records: rows.map(([rid, title, date, link]) => ({
        id: rid,
        title,
        date,
        ...(link ? { url: link } : {}),
      })),
      outcome: { kind: "ok", url },
      way: { used: { access: url.endsWith("/api/events") ? "api" : "page", url }, skipped: [] },
      startedAt: T0 + n * DAY,
      endedAt: T0 + n * DAY + 500,
    });
    const known = async (id: string) =>
      (await store.histories(addDays(NIGHT, 9), [id])).get(id)?.recordsKnown;
    try {
      await syncLists(store, ["w", "arch", "twin"]);
      // Night 0: the api, first read.
      let n = await openNightN(store, 0);
      const apiRows: Row[] = [
        ["101", "Council Meeting", "2026-11-02T18:00:00-05:00", "https://w.gov/meetings/101"],
        ["102", "Zoning  Board", "2026-10-28"],
        ["103", "Parks", "2026-10-20", "https://w.gov/meetings/103"],
      ];
      expect(await store.commit(n, src("w", 0, api("w"), apiRows))).toEqual({
        newRecords: 0,
        alreadyListed: 3,
      });
      const upcoming: Row[] = [
        ["1", "Council", "2026-11-10", "https://arch.gov/m/1"],
        ["2", "Zoning", "2026-11-12", "https://arch.gov/m/2"],
      ];
      expect(await store.commit(n, src("arch", 0, api("arch"), upcoming))).toEqual({
        newRecords: 0,
        alreadyListed: 2,
      });
      const twinApi: Row[] = [
        ["1", "Hearing", "2026-11-03"],
        ["2", "Budget", "2026-11-01"],
        ["3", "Levy", "2026-11-01"],
      ];
      expect(await store.commit(n, src("twin", 0, api("twin"), twinApi))).toEqual({
        newRecords: 0,
        alreadyListed: 3,
      });

      // Night 1: each api failed, each page read. w's page shows the api's three (its links
      // written https://www., the one without a link by its day and title) and one new.
      n = await openNightN(store, 1);
      expect(
        await store.commit(
          n,
          src("w", 1, page("w"), [
            [
              "https://www.w.gov/meetings/104",
              "COUNCIL MEETING",
              "2026-11-16",
              "https://www.w.gov/meetings/104",
            ],
            [
              "https://www.w.gov/meetings/101",
              "COUNCIL MEETING",
              "2026-11-02",
              "https://www.w.gov/meetings/101",
            ],
            ["h:zoning", "ZONING BOARD", "2026-10-28"],
            ["http://w.gov/meetings/103", "Parks", "2026-10-20", "http://w.gov/meetings/103"],
          ]),
        ),
      ).toEqual({ newRecords: 1 });
      expect(await known("w")).toBe(4);
      // arch's page shows its two beside four years-old minutes: another list, read as a first
      // read is (nothing of it new), its two records still held once.
      const archive: Row[] = [1, 2, 3, 4].map((i) => [
        `https://arch.gov/minutes/${i}`,
        `Minutes ${i}`,
        `2022-0${i}-01`,
        `https://arch.gov/minutes/${i}`,
      ]);
      expect(
        await store.commit(
          n,
          src("arch", 1, page("arch"), [
            ["https://arch.gov/m/1", "Council", "2026-11-10", "https://arch.gov/m/1"],
            ["https://arch.gov/m/2", "Zoning", "2026-11-12", "https://arch.gov/m/2"],
            ...archive,
          ]),
        ),
      ).toEqual({ newRecords: 0, alreadyListed: 4 });
      expect(await known("arch")).toBe(6);
      // twin's page shows two hearings on one day under one title: neither is the api's hearing
      // (which is, cannot be told), so both are kept; Budget and Levy are the api's.
      expect(
        await store.commit(
          n,
          src("twin", 1, page("twin"), [
            ["h:a", "Hearing", "2026-11-03"],
            ["h:b", "Hearing", "2026-11-03"],
            ["h:c", "Budget", "2026-11-01"],
            ["h:d", "Levy", "2026-11-01"],
          ]),
        ),
      ).toEqual({ newRecords: 0, alreadyListed: 2 });
      expect(await known("twin")).toBe(5);

      // Night 2: w's api is back and lists the page's new record under its own id: not new again.
      n = await openNightN(store, 2);
      const back: Row[] = [
        ["104", "Council Meeting", "2026-11-16T18:00:00-05:00", "https://w.gov/meetings/104"],
        ...apiRows,
      ];
      expect(await store.commit(n, src("w", 2, api("w"), back))).toEqual({ newRecords: 0 });
      expect(await known("w")).toBe(4);
      // And the next night, what is new on the api is new.
      n = await openNightN(store, 3);
      expect(
        await store.commit(
          n,
          src("w", 3, api("w"), [
            ["105", "Library", "2026-11-20", "https://w.gov/meetings/105"],
            ...back,
          ]),
        ),
      ).toEqual({ newRecords: 1 });
      expect(await known("w")).toBe(5);
    } finally {
      await close();
    }
  });

  it("P4, P7: a way's first read whose list reaches further back than the other way's says new only what is not older than what both show: the older rows beyond the other's window were there before", async () => {
    const { store, close } = await maker.make();
    const page = "https://win.gov/meetings";
    const api = "https://win.gov/api/events";
    const src = (n: number, url: string, days: string[]): SourceResult => ({
      ...result([]),
      sourceId: "win",
      records: days.map((d) => ({
        id: `https://win.gov/m/${d}`,
        title: `Meeting ${d}`,
        date: d,
        url: `https://win.gov/m/${d}`,
      })),
      outcome: { kind: "ok", url },
      way: { used: { access: url === api ? "api" : "page", url }, skipped: [] },
      startedAt: T0 + n * DAY,
      endedAt: T0 + n * DAY + 500,
    });
    try {
      await syncLists(store, ["win"]);
      // A new source, its api failing the first night: its page, newest first, shows four.
      let n = await openNightN(store, 0);
      const shown = ["2026-11-20", "2026-11-15", "2026-11-10", "2026-11-05"];
      expect(await store.commit(n, src(0, page, shown))).toEqual({
        newRecords: 0,
        alreadyListed: 4,
      });
      // The api the next night: one meeting posted since, the page's four, and two older
      // meetings the page's window did not reach (there all along): only the one is new.
      n = await openNightN(store, 1);
      expect(
        await store.commit(n, src(1, api, ["2026-11-25", ...shown, "2026-10-30", "2026-10-25"])),
      ).toEqual({ newRecords: 1, alreadyListed: 2 });
    } finally {
      await close();
    }
  });

  it("P4, P6: a meeting posted the night the api failed, on a page of other records (read as a first read: listed), is new when the api is back and lists it, not never", async () => {
    const { store, close } = await maker.make();
    const page = "https://late.gov/minutes";
    const api = "https://late.gov/api/events";
    type Row = [id: string, title: string, date: string];
    const src = (n: number, url: string, rows: Row[]): SourceResult => ({
      ...result([]),
      sourceId: "late",
      records: rows.map(([id, title, date]) => ({
        id: url === api ? `e${id.slice(id.lastIndexOf("/") + 1)}` : id,
        title,
        date,
        url: id,
      })),
      outcome: { kind: "ok", url },
      way: { used: { access: url === api ? "api" : "page", url }, skipped: [] },
      startedAt: T0 + n * DAY,
      endedAt: T0 + n * DAY + 500,
    });
    const m = (i: number, d: string): Row => [`https://late.gov/m/${i}`, `Meeting ${i}`, d];
    try {
      await syncLists(store, ["late"]);
      let n = await openNightN(store, 0);
      expect(await store.commit(n, src(0, api, [m(2, "2026-11-20"), m(1, "2026-11-10")]))).toEqual({
        newRecords: 0,
        alreadyListed: 2,
      });
      // The api fails: the page shows its two meetings, one posted since, and years of minutes:
      // another list, mostly not held, read as a first read is (nothing of it new).
      n = await openNightN(store, 1);
      const minutes: Row[] = [1, 2, 3, 4].map((i) => [
        `https://late.gov/minutes/${i}`,
        `Minutes ${i}`,
        `2022-0${i}-01`,
      ]);
      expect(
        await store.commit(
          n,
          src(1, page, [m(3, "2026-11-25"), m(2, "2026-11-20"), m(1, "2026-11-10"), ...minutes]),
        ),
      ).toEqual({ newRecords: 0, alreadyListed: 5 });
      // The api back lists the meeting posted since its last read: new, once.
      n = await openNightN(store, 2);
      expect(
        await store.commit(
          n,
          src(2, api, [m(3, "2026-11-25"), m(2, "2026-11-20"), m(1, "2026-11-10")]),
        ),
      ).toEqual({ newRecords: 1 });
      expect((await store.histories(addDays(NIGHT, 9), ["late"])).get("late")?.recordsKnown).toBe(
        7,
      );
    } finally {
      await close();
    }
  });

  it("P7: the backfill's state is kept as each night leaves it, a change written and the same left", async () => {
    const { store, close } = await maker.make();
    try {
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/", site: "a.gov" }],
        T0,
      );
      const states: NonNullable<SourceResult["backfill"]>[] = [
        { done: false, pagesRead: 1 },
        { done: false, pagesRead: 1 },
        { done: false, cursor: { url: "https://a.gov/?page=3" }, pagesRead: 2 },
        { done: false, cursor: { url: "https://a.gov/?page=3" }, pagesRead: 2 },
        { done: false, cursor: { url: "https://a.gov/?page=4" }, pagesRead: 2 },
        { done: true, pagesRead: 3 },
        { done: true, pagesRead: 3 },
      ];
      for (const [i, b] of states.entries()) {
        const night = `2026-11-${String(5 + i).padStart(2, "0")}`;
        await store.openNight(night, T0, T0 + 3600_000);
        expect((await store.commit(night, { ...result([]), backfill: b })).already).toBeUndefined();
        const h = (await store.histories(night, ["a.gov/0"])).get("a.gov/0");
        expect(h?.backfill).toEqual({
          done: b.done,
          pagesRead: b.pagesRead,
          ...(b.cursor ? { cursor: b.cursor } : {}),
        });
      }
    } finally {
      await close();
    }
  });
  it("P6: a linkless list's recipe mended after its last read showed no rows (the old recipe found none) pairs its records by title alone: none new again", async () => {
    const { store, close } = await maker.make();
    const url = "https://ll.gov/list";
    const src = (
      rows: readonly (readonly [string, string, string])[],
      reader: string,
    ): SourceResult => ({
      ...result([]),
      sourceId: "ll",
      records: rows.map(([id, title, date]) => ({ id, title, date })),
      outcome:
        rows.length > 0
          ? { kind: "ok", url }
          : { kind: "no-records", url, reason: "no records on the page" },
      way: { used: { access: "page", url }, skipped: [] },
      reader,
      pageRead: {
        url,
        key: `k${reader}${rows.length}`,
        records: rows.length,
        ids: rows.map((r) => r[0]),
      },
    });
    try {
      await store.syncSources([{ id: "ll", government: "g", url, site: "ll.gov" }], T0);
      const known = await commitNights(
        store,
        "ll",
        [
          [
            src(
              [
                ["h1", "Notice 1", "2026-12-11"],
                ["h2", "Notice 2", "2026-12-12"],
                ["h3", "Notice 3", "2026-12-13"],
              ],
              "v1",
            ),
            { newRecords: 0, alreadyListed: 3 },
          ],
          // The site's layout changed: the old recipe finds no rows.
          [src([], "v1"), { newRecords: 0 }],
          // Mended: the same notices, their dates read from another column.
          [
            src(
              [
                ["p1", "Notice 1", "2026-11-01"],
                ["p2", "Notice 2", "2026-11-02"],
                ["p3", "Notice 3", "2026-11-03"],
              ],
              "v2",
            ),
            { newRecords: 0 },
          ],
        ],
        (x) => x,
      );
      expect(known).toBe(3);
    } finally {
      await close();
    }
  });
});

type MarkingMaker = {
  name: string;
  make(): Promise<{
    store: NightStore;
    mark(reading: boolean, night: string, at: number): Promise<void>;
    close(): Promise<void>;
  }>;
};
const marking: MarkingMaker[] = [
  {
    name: "memory",
    make: async () => {
      const store = new MemoryNightStore();
      return {
        store,
        mark: async (reading, night) => store.mark("a.gov/0", reading, night, "asked"),
        close: async () => {},
      };
    },
  },
  ...factories.map(
    (f): MarkingMaker => ({
      name: f.name,
      make: async () => {
        const s = await openStore(await f.migrated());
        return {
          store: new SqlNightStore(s.db),
          mark: async (reading, night, at) => {
            const r = await markSource(s.db, {
              source: "a.gov/0",
              reading,
              ...(reading ? {} : { reason: "asked" }),
              by: "test",
              at,
              night,
            });
            expect(r.kind).toBe("marked");
          },
          close: () => s.close(),
        };
      },
    }),
  ),
];

describe.each(marking)("a source as it stands when its turn comes ($name)", (maker) => {
  it("P24: sourceNow reads tonight's outcome and the latest mark, as another process wrote it", async () => {
    const { store, mark, close } = await maker.make();
    try {
      await store.openNight(NIGHT, T0, T0 + 6 * 3600_000);
      await store.syncSources(
        [{ id: "a.gov/0", government: "g", url: "https://a.gov/", site: "a.gov" }],
        T0,
      );
      expect(await store.sourceNow(NIGHT, "a.gov/0")).toEqual({ done: false, reading: true });
      await mark(false, NIGHT, T0 + 1_000);
      expect(await store.sourceNow(NIGHT, "a.gov/0")).toEqual({
        done: false,
        reading: false,
        markedNight: NIGHT,
      });
      // The latest mark is the one in force.
      await mark(true, NIGHT, T0 + 2_000);
      expect(await store.sourceNow(NIGHT, "a.gov/0")).toEqual({ done: false, reading: true });
      await store.commit(NIGHT, result(["1"]));
      expect(await store.sourceNow(NIGHT, "a.gov/0")).toEqual({ done: true, reading: true });
      expect(await store.sourceNow("2026-11-06", "a.gov/0")).toEqual({
        done: false,
        reading: true,
      });
    } finally {
      await close();
    }
  });
});
