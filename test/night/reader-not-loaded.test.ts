import { describe, expect, it } from "vitest";
import type { Fetcher, FetchRequest } from "../../src/net/types.js";
import { checkSource } from "../../src/night/check-source.js";
import type { WayReader } from "../../src/night/reader.js";
import type { Source } from "../../src/sources/catalog/types.js";

const HISTORY = { reading: true, unreachedLast: false, recentOutcomes: [], recordsKnown: 0 };
const URL_A = "http://127.0.0.2/feed.xml";
const clock = { now: () => Date.UTC(2026, 10, 5, 8), sleep: async () => {} };
const source: Source = {
  id: "feed",
  government: "g",
  records: "agendas",
  url: URL_A,
  access: "feed",
  alternates: [],
  backfill: { pagesPerNight: 0 },
  confirmed: false,
};
const cannotLoad: WayReader = {
  ready: () => Promise.reject(new Error("the feed reader could not be loaded")),
  firstRequest: (way) => ({ url: way.url }),
  extract: () => {
    throw new Error("not loaded");
  },
  nextRequest: () => undefined,
};

/**
 * A reader that cannot be loaded (lazy-reader.ts) is the source's extract-error, saying why;
 * the copy in hand is never asked for again on that account (P8).
 */
describe("a reader that cannot be loaded", () => {
  it("P8: an answer stored earlier tonight is not asked again; the source says why it was not read", async () => {
    const asked: FetchRequest[] = [];
    const fetcher: Fetcher = {
      fetch: async (req) => {
        asked.push(req);
        return { kind: "error", url: req.url, status: null, reason: "not expected" };
      },
    };
    const result = await checkSource(
      {
        fetcher,
        clock: clock as never,
        reader: cannotLoad,
        validators: {
          get: async () => undefined,
          storedSince: async () => ({ url: URL_A, body: new TextEncoder().encode("<rss/>") }),
        },
        nightStartedAt: 0,
      },
      source,
      HISTORY,
    );
    expect(asked).toEqual([]);
    expect(result.outcome).toMatchObject({
      kind: "extract-error",
      reason: "the feed reader could not be loaded",
    });
  });
});
