import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { robots } from "../fleet/routes.js";
import { nightOn, outcomesOn, testerWorld } from "../night/tester-nights.js";
import { askedAfter, list, markPagedNotRead, pagedCatalog } from "./paged-mark.js";

/**
 * revmachines (review of fixmachines, cc0af223): P24 at the moment of sending. The lane's
 * fetcher reads the mark again before each further request of a source's check
 * (src/night/run-night.ts, laneFetcher), but that read comes before the request waits at the
 * site gate for its gap (a Crawl-delay, an owner's slower pace, a Retry-After), not at the
 * moment it is admitted. A mark written while the next page waits out the gap lets that page
 * go all the same.
 */
const world = testerWorld("nor-revmachines-mark-gap-");

describe("revmachines: a person's mark while the next page waits out the Crawl-delay (P24)", () => {
  // Was a DEFECT: the mark was read in laneFetcher.fetch (src/night/run-night.ts) before the
  // request entered the pipeline; the site gate then waited the Crawl-delay (3 s here) and
  // admitted it without reading the mark again. Seen: ["/paged?page=2"] asked after `nor mark
  // --not-read` returned. Mended: a further request's hold (FetchRequest.held, asked by the site
  // gate just before admission, after the wait) reads the mark, one read a request.
  it("P24, P10: a source marked not read while its next page waits out the site's Crawl-delay has that page not sent", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", robots("User-agent: *\nCrawl-delay: 3\n"));
    const data = join(world.dir, "gap");
    let markedAt: number | undefined;
    let mark: Promise<void> | undefined;
    site.route("/paged", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(list(page));
      if (page !== 1 || mark !== undefined) return;
      // Page 1 has answered: its check reads the mark (not yet written) and page 2 waits out
      // the 3 s Crawl-delay. The operator marks the source not read meanwhile.
      mark = markPagedNotRead(data).then((r) => {
        expect(r.code, r.stderr).toBe(0);
        markedAt = Date.now();
      });
    });
    const catalog = pagedCatalog(world.dir, "gap", site);
    await nightOn(catalog, data, "2026-11-20");
    await mark;
    expect(markedAt).toBeDefined();
    const after = askedAfter(site, markedAt as number);
    expect(after).toEqual([]);
    expect(outcomesOn(data, "2026-11-20")).toEqual({});
  }, 60_000);
});
