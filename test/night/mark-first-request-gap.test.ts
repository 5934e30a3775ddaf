import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runNorAsync } from "../cli/run-nor.js";
import { robots } from "../fleet/routes.js";
import { askedAfter, RECIPE } from "../review/paged-mark.js";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P24 at the moment of sending, for a source's first request: the mark is read at the source's
 * turn, but its first request may then wait at the site gate for the gap after the source
 * before it (a Crawl-delay, an owner's slower pace, a Retry-After). A person's `nor mark
 * --not-read` written meanwhile must hold it: nothing of that source is sent tonight.
 */
const world = testerWorld("nor-mark-first-gap-");

describe("a person's mark while a source's first request waits out the site's gap (P24)", () => {
  it("P24, P10: a source marked not read while its first request waits out the site's Crawl-delay has that request not sent", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", robots("User-agent: *\nCrawl-delay: 5\n"));
    const data = join(world.dir, "first");
    const page = (n: string) =>
      `<ul><li><a href="/d/${n}.pdf">${n}</a> <span>11/02/2026</span></li></ul>`;
    let markedAt: number | undefined;
    let mark: Promise<void> | undefined;
    // Whichever of the two sources the lane takes first: when its page has answered, the other
    // one's turn comes and its first request waits out the 5 s Crawl-delay; the operator marks
    // that other source not read meanwhile.
    for (const [path, other] of [
      ["/one", "two"],
      ["/two", "one"],
    ] as const)
      site.route(path, (_q, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(path.slice(1)));
        if (mark !== undefined) return;
        // A second and a half on: the source's check is over and the other's turn has read
        // its mark (none yet); its first request waits out the gap, 5 s from this answer.
        mark = sleep(1_500)
          .then(() =>
            runNorAsync([
              ...["mark", other, "--not-read", "--reason", "the clerk asked us to stop"],
              ...["--data", data],
            ]),
          )
          .then((r) => {
            expect(r.code, r.stderr).toBe(0);
            markedAt = Date.now();
          });
      });
    const catalog = testerCatalog(world.dir, "first", [
      `  - { id: one, government: city-of-test, records: agendas, url: "${site.url("/one")}", ${RECIPE} }`,
      `  - { id: two, government: city-of-test, records: minutes, url: "${site.url("/two")}", ${RECIPE} }`,
    ]);
    await nightOn(catalog, data, "2026-11-20");
    await mark;
    expect(markedAt).toBeDefined();
    // The mark was written before the 5 s were over (begun 1.5 s after the first answer, it takes well under a second more): the
    // second source's first request, admitted after them, is not sent.
    expect(askedAfter(site, markedAt as number)).toEqual([]);
    const asked = site.requests.map((q) => q.path).filter((p) => p !== "/robots.txt");
    expect(asked).toHaveLength(1);
    const outcomes = outcomesOn(data, "2026-11-20");
    const first = asked[0] === "/one" ? "one" : "two";
    expect(Object.keys(outcomes)).toEqual([first]);
  }, 60_000);
});
