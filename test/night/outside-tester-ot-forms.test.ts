import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's findings on the ways in (P5, P7): an older page that answers 500 every
 * night was asked every night, for ever (a 404 ends the backfill after three nights, a 500 did
 * not).
 */
const world = testerWorld("nor-ot-forms-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

describe("P5, P7: the ways in, across nights (outside tester ot-forms)", () => {
  it("P7, P11: an older page that answers 500 every night ends the backfill after three nights; it is not asked every night for ever", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/bf", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(["only"], "/bf-older"));
    });
    // A broken older page, every night (its Retry-After keeps the test's retries short).
    site.route(
      "/bf-older",
      (_q, res) => void res.writeHead(500, { "retry-after": "1" }).end("Server Error"),
    );
    const catalog = testerCatalog(world.dir, "broken-page", [
      `  - { id: bf, government: city-of-test, records: agendas, url: "${site.url("/bf")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "broken-page");
    const nights = ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"];
    for (const night of nights) await nightOn(catalog, data, night);
    // Three tries a night (P15) on three nights, then no more; page 1 read every night.
    expect(site.hits("/bf-older")).toHaveLength(9);
    expect(site.hits("/bf")).toHaveLength(5);
    for (const night of nights) expect(outcomesOn(data, night)["bf"]?.outcome).toBe("ok");
  }, 120_000);
});
