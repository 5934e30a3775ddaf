import { afterEach, describe, expect, it } from "vitest";
import { checkSource, type HeldRecords } from "../../src/night/check-source.js";
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

/**
 * P7, P11 (the store's side): a carried-over page that shows no record held by id but some by
 * their look (the list's files moved) reads the source's held records once to tell which of its
 * records are so held, not once a record (each a read of every record the source holds: about
 * 0.7 s on a source of 50,000 records).
 */
describe("the look of a carried-over page's records (P7)", () => {
  it("P7: a carried-over page held by its look reads the source's held records at most twice, however many records it shows", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    // Page 1: c (first seen since the overflow began) and a (held before it); page 5: twenty
    // records, the first held by its look only.
    s.route("/list", (req, res) => {
      const page = new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1";
      const ids = page === "1" ? ["c", "a"] : Array.from({ length: 20 }, (_, i) => `p${page}-${i}`);
      res.writeHead(200, { "content-type": "text/plain" }).end(ids.join(","));
    });
    const reader: WayReader = {
      firstRequest: (way) => ({ url: way.url }),
      extract: (_way, body) => {
        const text = new TextDecoder().decode(body);
        const ids = text === "" ? [] : text.split(",");
        return { records: ids.map((t) => ({ id: t, title: t })) } as never;
      },
      nextRequest: () => undefined,
    };
    const validators: ValidatorStore = { get: async () => undefined };
    let reads = 0;
    const held: HeldRecords = {
      holdsAny: async (_s, ids, before) =>
        ids.some((id) => id === "a" || (before === undefined && id === "c")),
      holdsLike: async (_s, records) => {
        reads++;
        return records.some((x) => x.title === "p5-0");
      },
      // The store says which records are held by their look, reading them once for all.
      heldLike: async (_s, records) => {
        reads++;
        return records.map((x) => x.title === "p5-0");
      },
    };
    const source = {
      id: "src",
      government: "g",
      url: s.url("/list"),
      access: "page",
      alternates: [],
      backfill: { pagesPerNight: 3 },
    } as unknown as Source;
    const history: SourceHistory = {
      reading: true,
      unreachedLast: false,
      recentOutcomes: [],
      recordsKnown: 2,
      backfill: { done: true, pagesRead: 1 },
      overflow: {
        since: "2026-11-21",
        cursor: { url: s.url("/list?page=5") },
        way: s.url("/list"),
      },
    };
    const r = await checkSource(
      {
        fetcher: h.fetcher({ night: "2026-11-22" }),
        clock: h.clock,
        reader,
        validators,
        held,
        night: "2026-11-22",
      },
      source,
      history,
    );
    expect(r.overflow).toEqual({ done: true });
    // The page's nineteen others taken, the one held by its look not.
    expect(r.records.map((x) => x.id)).toEqual(
      ["c", "a", ...Array.from({ length: 20 }, (_, i) => `p5-${i}`)].filter((id) => id !== "p5-0"),
    );
    expect(reads).toBeLessThanOrEqual(2);
  });
});
