import { describe, expect, it } from "vitest";
import type { Fetcher, FetchRequest } from "../../src/net/types.js";
import { checkSource } from "../../src/night/check-source.js";
import type { WayReader } from "../../src/night/reader.js";
import type { SourceHistory } from "../../src/night/types.js";
import type { Source } from "../../src/sources/catalog/types.js";

const OLD = "http://127.0.0.2/old.rss";
const NEW = "http://127.0.0.3/feed.xml";
const HISTORY: SourceHistory = {
  reading: true,
  unreachedLast: false,
  recentOutcomes: [],
  recordsKnown: 0,
  moved: [{ from: OLD, to: NEW, night: "2026-11-04" }],
};
const clock = { now: () => Date.UTC(2026, 10, 5, 8), sleep: async () => {} };
const source: Source = {
  id: "feed",
  government: "g",
  records: "agendas",
  url: OLD,
  access: "feed",
  alternates: [],
  backfill: { pagesPerNight: 0 },
  confirmed: false,
};
const reader: WayReader = {
  firstRequest: (way) => ({ url: way.url }),
  extract: () => ({ records: [] }),
  nextRequest: () => undefined,
};

/**
 * P11, P21: a remembered move whose target's site said no earlier tonight (to another source)
 * was not asked tonight: nothing is said of where the page is, so the move stays (the next night
 * asks the target again, not the old URL and its redirect).
 */
describe("a remembered move not asked tonight", () => {
  for (const said of ["HTTP 403", "HTTP 429 (retry-after-too-long)", ""]) {
    it(`P11, P21: its target's site said no earlier tonight (${said || "no reason kept"}): the move stays`, async () => {
      const asked: FetchRequest[] = [];
      const fetcher: Fetcher = {
        fetch: async (req) => {
          asked.push(req);
          return { kind: "site-closed", url: req.url, reason: said };
        },
      };
      const result = await checkSource(
        { fetcher, clock: clock as never, reader, validators: { get: async () => undefined } },
        source,
        HISTORY,
      );
      expect(asked.map((r) => r.url)).toEqual([NEW]);
      expect(result.outcome.kind).toBe("refused");
      expect(result.moves).toBeUndefined();
    });
  }
});
