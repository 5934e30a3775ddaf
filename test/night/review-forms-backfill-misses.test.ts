import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * A reviewer's findings on 5a7b94e (P7: an older page that fails every night is a miss): the
 * failure was added to the same count as older pages that show no records, a count of pages in
 * a row, not of nights: two quiet months read one night and one 500 on the next page that same
 * night ended the backfill for good; and a site's own "come back later" (a 503 with a
 * Retry-After longer than the night waits, P15) was a miss too.
 */
const world = testerWorld("nor-review-forms-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

function backfillOf(data: string, id: string): { done: number; cursor: string | null } {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db.prepare("select done, cursor from backfill where source_id = ?").get(id) as {
      done: number;
      cursor: string | null;
    };
  } finally {
    db.close();
  }
}

function titlesOf(data: string, id: string): string[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db
      .prepare("select title from records where source_id = ?")
      .all(id)
      .map((r) => (r as { title: string }).title)
      .sort();
  } finally {
    db.close();
  }
}

describe("P7: what ends a backfill (review of 5a7b94e)", () => {
  it("P7: two older pages without records and one 500 the same night do not end the backfill: a failure counts in nights, the page is asked again the next night", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    const html = (res: import("node:http").ServerResponse, s: string) =>
      void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(s);
    site.route("/mx", (_q, res) => html(res, list(["new"], "/mx-2")));
    // Two months without meetings (a list shows them as empty pages with a Next link).
    site.route("/mx-2", (_q, res) => html(res, list([], "/mx-3")));
    site.route("/mx-3", (_q, res) => html(res, list([], "/mx-4")));
    // A blip on the first night only.
    let night = 0;
    site.route("/mx-4", (_q, res) => {
      if (night === 1) return void res.writeHead(500, { "retry-after": "1" }).end("oops");
      html(res, list(["old"]));
    });
    const catalog = testerCatalog(world.dir, "mixed", [
      `  - { id: mx, government: city-of-test, records: agendas, url: "${site.url("/mx")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "mixed");
    for (const date of ["2026-11-20", "2026-11-21"]) {
      night++;
      await nightOn(catalog, data, date);
    }
    expect(outcomesOn(data, "2026-11-21")["mx"]?.outcome).toBe("ok");
    // Asked three times the first night (P15), and again the next night, when it answered.
    expect(site.hits("/mx-4")).toHaveLength(4);
    expect(titlesOf(data, "mx")).toEqual(["new", "old"]);
  }, 120_000);

  it("P7, P15: an older page whose site says to come back later (a 503 with a Retry-After over 60 s) is no miss: three such nights do not end the backfill", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/ra", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(["only"], "/ra-older"));
    });
    site.route(
      "/ra-older",
      (_q, res) => void res.writeHead(503, { "retry-after": "7200" }).end("Maintenance"),
    );
    const catalog = testerCatalog(world.dir, "held", [
      `  - { id: ra, government: city-of-test, records: agendas, url: "${site.url("/ra")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "held");
    const nights = ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"];
    for (const night of nights) {
      await nightOn(catalog, data, night);
      // The next night is a day later in fact: the two hours the site asked for have passed.
      const db = new Database(join(data, "nor.db"));
      try {
        db.prepare("update site_state set not_before = null").run();
      } finally {
        db.close();
      }
    }
    // Once a night (no retry tonight: P15), every night: the site's hold says nothing of the page.
    expect(site.hits("/ra-older")).toHaveLength(4);
    const bf = backfillOf(data, "ra");
    expect(bf.done).toBe(0);
    expect(bf.cursor).toContain("/ra-older");
  }, 120_000);
});
