import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import { MemoryNightStore } from "../../src/night/memory-store.js";
import type { ValidatorStore, WayReader } from "../../src/night/reader.js";
import type { SourceHistory } from "../../src/night/types.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const BODY = "one,two,three";

/**
 * P8, P12: a 304 whose stored copy is the source's first page as last read in full (same way in,
 * URL, Content-Type and body: its key) is counted from that read, whose records were stored
 * with it, instead of being extracted again. Anything else is extracted from the copy as before.
 */
/**
 * What both kinds of test share: a reader that counts its extractions (a page's text is its
 * records' ids, comma-separated), an in-memory store, the source at `url`, each check on a night
 * of its own (the journal replays the same request within a night), and a source's history.
 */
function checking(url: string, validators: ValidatorStore) {
  const harnessed = h as Harness;
  let extracted = 0;
  const reader: WayReader = {
    firstRequest: (way) => ({ url: way.url }),
    extract: (_way, body) => {
      extracted++;
      const text = new TextDecoder().decode(body);
      const titles = text === "" ? [] : text.split(",");
      return { records: titles.map((t) => ({ id: t, title: t })) } as never;
    },
    nextRequest: () => undefined,
  };
  const store = new MemoryNightStore();
  const source = {
    id: "src",
    government: "g",
    url,
    access: "page",
    alternates: [],
    backfill: { pagesPerNight: 3 },
  } as unknown as Source;
  let night = 4;
  const ctx = () => ({
    fetcher: harnessed.fetcher({ night: `2026-11-${String(++night).padStart(2, "0")}` }),
    clock: harnessed.clock,
    reader,
    validators,
    pageReads: { pageRead: (id: string, u: string) => store.pageRead(id, u) },
  });
  const history = (recordsKnown: number, backfillDone = true): SourceHistory => ({
    reading: true,
    unreachedLast: false,
    recentOutcomes: [],
    recordsKnown,
    backfill: { done: backfillDone, pagesRead: 0 },
  });
  return { store, ctx, source, history, extracted: () => extracted };
}

describe("a 304 of the page last read in full (P8, P12)", () => {
  async function setup(copyBody = BODY) {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", (req, res) => {
      if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304).end();
      res.writeHead(200, { etag: '"v1"', "content-type": "text/plain" }).end(BODY);
    });
    let etag: string | undefined;
    const validators: ValidatorStore = {
      get: async () => (etag ? { etag } : undefined),
      storedCopy: async (u) =>
        etag
          ? { url: u, body: new TextEncoder().encode(copyBody), contentType: "text/plain" }
          : undefined,
    };
    const c = checking(s.url("/list"), validators);
    return {
      s,
      ...c,
      stored: () => {
        etag = '"v1"';
      },
    };
  }

  it("P8, P12: the night after a full read, the 304's copy is counted from that read: same outcome and records found, nothing extracted", async () => {
    const t = await setup();
    const first = await checkSource(t.ctx(), t.source, t.history(0, false));
    expect(first.outcome.kind).toBe("ok");
    expect(first.records).toHaveLength(3);
    expect(first.pageRead).toMatchObject({ url: t.source.url, records: 3 });
    await t.store.commit("2026-11-05", first);
    t.stored();
    expect(t.extracted()).toBe(1);

    const second = await checkSource(t.ctx(), t.source, t.history(3));
    expect(t.s.hits("/list").map((q) => q.headers["if-none-match"])).toEqual([undefined, '"v1"']);
    expect(second.outcome).toEqual({ kind: "unchanged", url: t.source.url });
    expect(second.records).toEqual([]);
    expect(second.knownRecords).toBe(3);
    expect(t.extracted()).toBe(1);
    expect(await t.store.commit("2026-11-06", second)).toEqual({ newRecords: 0 });
    const found = t.store.outcomes.get("src")?.map((o) => [o.night, o.recordsFound, o.newRecords]);
    // (The first night's three were its first read: already listed, none new.)
    expect(found).toEqual([
      ["2026-11-05", 3, 0],
      ["2026-11-06", 3, 0],
    ]);
  });

  it("P8, P12: a copy other than the page last read in full, records removed since, or a backfill yet to start: the copy is extracted as before", async () => {
    // The copy differs from what was read (another body under the same validators).
    const t = await setup("one,two");
    await t.store.commit("2026-11-05", await checkSource(t.ctx(), t.source, t.history(0, false)));
    t.stored();
    const changed = await checkSource(t.ctx(), t.source, t.history(3));
    expect(changed.records.map((r) => r.id)).toEqual(["one", "two"]);
    expect(changed.knownRecords).toBeUndefined();
    expect(changed.pageRead).toMatchObject({ records: 2 });
    expect(t.extracted()).toBe(2);
    await h?.close();

    // A record of the read no longer stored (removed by hand), though the source holds as
    // many records as the page lists: read again and stored.
    const u = await setup();
    await u.store.commit("2026-11-05", await checkSource(u.ctx(), u.source, u.history(0, false)));
    u.stored();
    const held = u.store.records.get("src");
    held?.delete("two");
    held?.set("older", { record: { id: "older", title: "older" }, firstNight: "2026-11-01" });
    const removed = await checkSource(u.ctx(), u.source, u.history(3));
    expect(removed.records).toHaveLength(3);
    expect(removed.knownRecords).toBeUndefined();
    expect(u.extracted()).toBe(2);
    // Stored again, already listed: the page the site says is unchanged showed it before.
    expect(await u.store.commit("2026-11-06", removed)).toEqual({
      newRecords: 0,
      alreadyListed: 1,
    });
    // A backfill that has not started turns from page 1: its records and body are read.
    const backfill = await checkSource(u.ctx(), u.source, u.history(3, false));
    expect(backfill.records).toHaveLength(3);
    expect(u.extracted()).toBe(3);
    // The same page: counted.
    const known = await checkSource(u.ctx(), u.source, u.history(3));
    expect(known.knownRecords).toBe(3);
    expect(u.extracted()).toBe(3);
  });
});

/**
 * P8, P12: a site that ignores validators (or sends none) answers the page in full every
 * night. A body that is the page last read in full (its key), while the store holds every
 * record that read produced, is counted from that read as a 304 of it is; anything else is read.
 */
describe("the page last read in full, sent again whole (P8, P12)", () => {
  async function setup() {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    let body = BODY;
    // No validators at all: every answer is a full 200.
    s.route("/list", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end(body);
    });
    const c = checking(s.url("/list"), { get: async () => undefined });
    return {
      s,
      ...c,
      serve: (b: string) => {
        body = b;
      },
    };
  }

  it("P8, P12: the same body as the last full read is counted from it: outcome ok, the same records found, nothing extracted or written again", async () => {
    const t = await setup();
    await t.store.commit("2026-11-05", await checkSource(t.ctx(), t.source, t.history(0, false)));
    expect(t.extracted()).toBe(1);

    const again = await checkSource(t.ctx(), t.source, t.history(3));
    expect(t.s.hits("/list")).toHaveLength(2);
    expect(again.outcome).toEqual({ kind: "ok", url: t.source.url });
    expect(again.records).toEqual([]);
    expect(again.knownRecords).toBe(3);
    expect(again.pageRead).toBeUndefined();
    expect(t.extracted()).toBe(1);
    expect(await t.store.commit("2026-11-06", again)).toEqual({ newRecords: 0 });
    const found = t.store.outcomes.get("src")?.map((o) => [o.night, o.recordsFound, o.newRecords]);
    // (The first night's three were its first read: already listed, none new.)
    expect(found).toEqual([
      ["2026-11-05", 3, 0],
      ["2026-11-06", 3, 0],
    ]);
  });

  it("P8, P12: another body, a record removed since, a backfill yet to start, or a page that showed no records: read in full as before", async () => {
    const t = await setup();
    await t.store.commit("2026-11-05", await checkSource(t.ctx(), t.source, t.history(0, false)));
    // Another body: read, its new record stored, its read kept.
    t.serve("one,two,three,four");
    const changed = await checkSource(t.ctx(), t.source, t.history(3));
    expect(changed.records.map((r) => r.id)).toEqual(["one", "two", "three", "four"]);
    expect(changed.knownRecords).toBeUndefined();
    expect(changed.pageRead).toMatchObject({ records: 4 });
    expect(t.extracted()).toBe(2);
    expect(await t.store.commit("2026-11-06", changed)).toEqual({ newRecords: 1 });
    // A record of that read removed by hand: read again, and it is back.
    t.store.records.get("src")?.delete("four");
    const removed = await checkSource(t.ctx(), t.source, t.history(3));
    expect(removed.records).toHaveLength(4);
    expect(t.extracted()).toBe(3);
    expect(await t.store.commit("2026-11-07", removed)).toEqual({ newRecords: 1 });
    // A backfill that has not started turns from page 1: read.
    const backfill = await checkSource(t.ctx(), t.source, t.history(4, false));
    expect(backfill.records).toHaveLength(4);
    expect(t.extracted()).toBe(4);
    // The same page, all stored: counted.
    const known = await checkSource(t.ctx(), t.source, t.history(4));
    expect(known.knownRecords).toBe(4);
    expect(t.extracted()).toBe(4);
    // A page that showed no records is read each time, for what it says.
    t.serve("");
    await t.store.commit("2026-11-08", await checkSource(t.ctx(), t.source, t.history(4)));
    const empty = await checkSource(t.ctx(), t.source, t.history(4));
    expect(empty.outcome.kind).toBe("no-records");
    expect(t.extracted()).toBe(6);
  });
});
