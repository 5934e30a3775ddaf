import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import type { ValidatorStore, WayReader } from "../../src/night/reader.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * P12 on backfill (P7): an older page asked before goes with its stored validators, and a
 * 304 is read from the stored copy (P8), so the backfill goes on as if it had been sent.
 */
describe("backfill pages ask with their validators (P7, P12)", () => {
  it("P7, P12, P8: a backfill page with a stored ETag is asked with If-None-Match; its 304 is read from the stored copy", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route(
      "/list",
      (_q, res) => void res.writeHead(200, { etag: '"p1"' }).end("one|/list?page=2"),
    );
    s.route("/list?page=2", (req, res) => {
      if (req.headers["if-none-match"] === '"p2"') return void res.writeHead(304).end();
      res.writeHead(200, { etag: '"p2"' }).end("two|");
    });
    const page2 = s.url("/list?page=2");
    // A line of text: "record|next page path".
    const reader: WayReader = {
      firstRequest: (way) => ({ url: way.url }),
      extract: (_way, body) => {
        const [title] = new TextDecoder().decode(body).split("|");
        return { records: [{ id: title ?? "", title: title ?? "" }] } as never;
      },
      nextRequest: (_way, _prev, body) => {
        const next = new TextDecoder().decode(body).split("|")[1];
        return next ? { url: s.url(next) } : undefined;
      },
    };
    const validators: ValidatorStore = {
      get: async (url) => (url === page2 ? { etag: '"p2"' } : undefined),
      storedCopy: async (url) =>
        url === page2 ? { url, body: new TextEncoder().encode("two from the copy|") } : undefined,
    };
    const source = {
      id: "bf",
      government: "g",
      url: s.url("/list"),
      access: "page",
      alternates: [],
      backfill: { pagesPerNight: 3 },
    } as unknown as Source;
    const result = await checkSource(
      { fetcher: h.fetcher(), clock: h.clock, reader, validators },
      source,
      { reading: true, unreachedLast: false, recentOutcomes: [], recordsKnown: 0 } as never,
    );
    expect(s.hits("/list?page=2").map((q) => q.headers["if-none-match"])).toEqual(['"p2"']);
    expect(result.records.map((r) => r.title)).toEqual(["one", "two from the copy"]);
    expect(result.backfill).toMatchObject({ done: true, pagesRead: 1 });
  });
});
