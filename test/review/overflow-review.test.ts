import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asked, newTitles, PER_PAGE } from "../night/overflow-carry-world.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/**
 * Review of the overflow read (P7): a first page that shows no record the source holds for
 * another reason than a day's overflow (files moved, another way in) must not put the list's
 * older records on "New on record".
 */
const world = testerWorld("nor-overflow-review-");
describe("overflow review (P7)", () => {
  it("P7: a site that moves its files (every link new at once) puts none of the list's older records on New on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let dir = "d";
    const count = 12;
    site.route("/list", (req: IncomingMessage, res: ServerResponse) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i); // newest first
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/${dir}/r-${n}.pdf">Minutes ${n}</a> <span>10/${String(n).padStart(2, "0")}/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`,
        );
    });
    const catalog = testerCatalog(world.dir, "moved", [
      `  - { id: list, government: city-of-test, records: minutes, url: "${site.url("/list")}", extract: { items: li, title: a, link: a, date: span, next: a.next } }`,
    ]);
    const data = join(world.dir, "moved");
    await nightOn(catalog, data, "2026-11-20"); // page 1 and the backfill: pages 2 to 4, the last
    await nightOn(catalog, data, "2026-11-21"); // nothing changed
    expect(asked(data, "2026-11-21")).toEqual(["/list"]);
    // The site moves its files: every link new, the list the same (docs/catalog.md "Files moved").
    dir = "files/2026";
    await nightOn(catalog, data, "2026-11-22");
    expect(await newTitles(data, "2026-11-22")).toEqual([]);
  });

  it("P4, P7: a night the api fails and the page is read (every id another) reads no next pages, and the meeting posted that night is new", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 9;
    let apiFails = false;
    const day = (n: number) => `2026-10-${String(n + 10).padStart(2, "0")}`;
    site.route("/api/events", (_q: IncomingMessage, res: ServerResponse) => {
      if (apiFails) {
        res.writeHead(500, { "content-type": "text/plain", "retry-after": "1" }).end("oops");
        return;
      }
      // The api shows the four latest meetings.
      const items = Array.from({ length: 4 }, (_, i) => count - i).map((n) => ({
        EventId: n,
        EventBodyName: `Board ${n}`,
        EventDate: `${day(n)}T00:00:00`,
        EventUrl: `/meetings/${n}`,
      }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ items }));
    });
    site.route("/meetings", (req: IncomingMessage, res: ServerResponse) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = Array.from({ length: count }, (_, i) => count - i);
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<ul>${rows
          .map((n) => {
            const [y, m, d] = day(n).split("-");
            return `<li><a href="/meetings/${n}">BOARD ${n}</a> <span>${m}/${d}/${y}</span></li>`;
          })
          .join(
            "",
          )}</ul>${more ? `<a class="next" href="/meetings?page=${page + 1}">Next</a>` : ""}`,
      );
    });
    const catalog = testerCatalog(world.dir, "ways", [
      "  - id: meetings",
      "    government: city-of-test",
      "    records: meetings",
      "    access: api",
      `    url: ${site.url("/api/events")}`,
      "    api: { items: items, title: EventBodyName, date: EventDate, id: EventId, link: EventUrl }",
      "    alternates:",
      "      - access: page",
      `        url: ${site.url("/meetings")}`,
      "        extract: { items: li, title: a, link: a, date: span, next: a.next }",
    ]);
    const data = join(world.dir, "ways");
    await nightOn(catalog, data, "2026-11-20");
    await nightOn(catalog, data, "2026-11-21");
    expect(asked(data, "2026-11-21")).toEqual(["/api/events"]);
    // The api fails; the page is read; one meeting was posted today.
    apiFails = true;
    count = 10;
    await nightOn(catalog, data, "2026-11-22");
    expect(asked(data, "2026-11-22").filter((p) => p.startsWith("/meetings"))).toEqual([
      "/meetings",
    ]);
    expect(await newTitles(data, "2026-11-22")).toEqual(["BOARD 10"]);
  }, 60_000);
});
