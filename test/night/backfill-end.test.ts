import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's findings (P7, P11): a list whose pages past its end are empty but still
 * show a "Next" link was walked three pages further every night, for ever; an older page that
 * answered 404 was asked again every night, for ever, the source still `ok`. Three older pages
 * in a row that show no records or are gone are the list's end now: the backfill is done. (A
 * review found one such page too blunt: a month without meetings, a 404 once.)
 */
const world = testerWorld("nor-backfill-end-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

describe("the end of a list's older pages (P7, P11)", () => {
  it("P7, P11: pages past the end that show no records but a Next link end the backfill; the next nights ask page 1 only", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/paged", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const rows = page <= 2 ? [`p${page}a`, `p${page}b`] : [];
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(rows, `/paged?page=${page + 1}`));
    });
    const catalog = testerCatalog(world.dir, "empty-pages", [
      `  - { id: paged, government: city-of-test, records: agendas, url: "${site.url("/paged")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "empty-pages");
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22"])
      await nightOn(catalog, data, night);
    const asked = site.requests.map((q) => q.path).filter((p) => p.startsWith("/paged"));
    // Night 1: page 1, pages 2 to 4 (3 and 4 empty); night 2: page 1 and page 5 (the third
    // empty in a row: the end); night 3: page 1 only.
    expect(asked).toEqual([
      "/paged",
      "/paged?page=2",
      "/paged?page=3",
      "/paged?page=4",
      "/paged",
      "/paged?page=5",
      "/paged",
    ]);
  });

  it("P7, P11: an older page that stays gone (404) ends the backfill after three nights; it is not asked every night for ever", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/bf", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(["only"], "/bf-older"));
    });
    site.route("/bf-older", (_q, res) => void res.writeHead(404).end("gone"));
    const catalog = testerCatalog(world.dir, "gone-page", [
      `  - { id: bf, government: city-of-test, records: agendas, url: "${site.url("/bf")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "gone-page");
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"])
      await nightOn(catalog, data, night);
    // Asked on three nights (a 404 once may pass), then no more.
    expect(site.hits("/bf-older")).toHaveLength(3);
    expect(site.hits("/bf")).toHaveLength(5);
  });

  it("P7: one empty older page (a month without meetings) or one 404 that passes does not end the backfill", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let blip = true;
    site.route("/cal", (req, res) => {
      const m = Number(new URL(req.url ?? "/", "http://x").searchParams.get("m") ?? "0");
      if (m === 3 && blip) {
        blip = false;
        return void res.writeHead(404).end("gone for a moment");
      }
      const rows = m === 0 || m >= 2 ? [`m${m}`] : [];
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(rows, m < 5 ? `/cal?m=${m + 1}` : undefined));
    });
    const catalog = testerCatalog(world.dir, "calendar", [
      `  - { id: cal, government: city-of-test, records: meetings, url: "${site.url("/cal")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "calendar");
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22"])
      await nightOn(catalog, data, night);
    const asked = site.requests.map((q) => q.path).filter((p) => p.startsWith("/cal"));
    // Month 1 is empty, month 3 answers 404 once: every month is read all the same.
    for (const m of [1, 2, 3, 4, 5]) expect(asked, `m=${m}`).toContain(`/cal?m=${m}`);
  });
});
