import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "../night/tester-nights.js";

/** P8, P6: `nor reparse` after a rename reads the pages the old id read (review-o10c C1). */
const world = testerWorld("nor-renamed-reparse-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const list = (rows: string[], next?: string) =>
  `<ul>${rows.map((r) => `<li><a href="/d/${r}.pdf">${r}</a> <span>11/01/2026</span></li>`).join("")}</ul>${next ? `<a class="next" href="${next}">Next</a>` : ""}`;

async function reparseSays(catalog: string, data: string): Promise<string> {
  const r = await runMain(["reparse", "--catalog", catalog, "--data", data]);
  return r.stdout;
}

describe("P8, P6: nor reparse after a rename", () => {
  it("P8, P6: the older pages a backfill read under the old id are read by reparse of the new id: nothing called 'would remove'", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route("/paged", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const rows = page <= 2 ? [`p${page}a`, `p${page}b`] : [];
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(list(rows, `/paged?page=${page + 1}`));
    });
    const entry = (id: string) =>
      `  - { id: ${id}, government: city-of-test, records: agendas, url: "${site.url("/paged")}", ${RECIPE} }`;
    const a = testerCatalog(world.dir, "a", [entry("paged")]);
    const b = testerCatalog(world.dir, "b", [entry("paged-agendas")]);
    const data = join(world.dir, "data");
    for (const night of ["2026-11-20", "2026-11-21", "2026-11-22"]) await nightOn(a, data, night);
    const before = await reparseSays(a, data);
    expect(before).toContain("would remove 0");
    // The operator renames the id; the next night reads page 1 (the backfill is done).
    await nightOn(b, data, "2026-11-23");
    const after = await reparseSays(b, data);
    // Nothing changed on the site: today's extraction agrees with the stored records.
    expect(after).toContain("would remove 0");
  });
});
