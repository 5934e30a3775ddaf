import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerWorld } from "../night/tester-nights.js";
import { askedAfter, list, markPagedNotRead, pagedCatalog } from "./paged-mark.js";

/**
 * tdurable (outside tester): P24 from another process during a source's check. run-night.ts
 * reads a person's mark (`nor mark SOURCE --not-read`) at the source's turn (sourceTurn), and
 * the site gate reads the site's owner rules at the moment of sending; nothing reads the
 * source's mark again while its check goes on. A new source's first night reads its list's
 * page 1 and up to three older pages (P7), each a request of its own, seconds (or, under a
 * Crawl-delay or an owner's slower pace, minutes) apart.
 *
 * What the operator sees: he marks the source not read ("the clerk asked us to stop") while the
 * night is reading its first page, `nor mark` says it is done, and the night then asks the
 * site for three more pages of that source and keeps their records. What the site owner sees:
 * requests for that list after the operator told him it was stopped.
 * Expected: a person's decision holds from the next request on, as an owner's rule does
 * (`nor site`): no request of the source's check after the mark is written.
 */
const world = testerWorld("nor-tdurable-mark-mid-");

describe("tdurable: a person's mark during a source's check (P24)", () => {
  // Was a DEFECT (arguable: docs/operations.md said so, "a source whose check has already begun (its
  // first page asked) is finished as it was planned"; the guide's bar, every decision to send
  // read from shared durable state at the moment of sending, and P24 say otherwise): the mark
  // is read only at the source's turn (src/night/run-night.ts, the lane loop's sourceTurn /
  // markedSince); the backfill's older pages (src/night/check-source.ts) are asked after it.
  // Pages 2 to 4 were requested after `nor mark --not-read` had returned. Mended: the lane's
  // fetcher reads the mark again before each further request of a source's check
  // (src/night/run-night.ts), and docs/operations.md says so.
  it("P24, P7: a source marked not read (nor mark, another process) while the night reads its first page is asked nothing more that night", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const data = join(world.dir, "mid");
    let markedAt: number | undefined;
    let mark: Promise<void> | undefined;
    site.route("/paged", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const answer = () =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(list(page));
      if (page !== 1 || mark !== undefined) return answer();
      // The operator marks it not read while its first page is being read.
      mark = markPagedNotRead(data).then((r) => {
        expect(r.code, r.stderr).toBe(0);
        markedAt = Date.now();
        answer();
      });
    });
    const catalog = pagedCatalog(world.dir, "mid", site);
    await nightOn(catalog, data, "2026-11-20");
    await mark;
    expect(markedAt).toBeDefined();
    const after = askedAfter(site, markedAt as number);
    // Seen on main: ["/paged?page=2", "/paged?page=3", "/paged?page=4"].
    expect(after).toEqual([]);
    // Counted as not read, as if its turn had come after the mark: no outcome recorded tonight.
    expect(outcomesOn(data, "2026-11-20")).toEqual({});
  }, 60_000);
});
