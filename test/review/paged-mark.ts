/**
 * The setup the P24 "mark during a source's check" tests share: one source (`paged`) whose list
 * has a next page on every page, and the operator's `nor mark paged --not-read` from another
 * process.
 */
import { type NorRun, runNorAsync } from "../cli/run-nor.js";
import type { FleetServer } from "../fleet/fleet.js";
import { testerCatalog } from "../night/tester-nights.js";

/** The list's recipe: items, their dates, and its next page. */
export const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";

/** Page `page` of the list: one item, and a link to the page after it. */
export const list = (page: number) =>
  `<ul><li><a href="/d/p${page}.pdf">p${page}</a> <span>11/0${page}/2026</span></li></ul><a class="next" href="/paged?page=${page + 1}">Next</a>`;

/** A catalog `name` in `dir` of the one source `paged`, read at `site`'s /paged. */
export function pagedCatalog(dir: string, name: string, site: FleetServer): string {
  return testerCatalog(dir, name, [
    `  - { id: paged, government: city-of-test, records: agendas, url: "${site.url("/paged")}", ${RECIPE} }`,
  ]);
}

/** `nor mark paged --not-read` on `data`, as the operator runs it while the night goes on. */
export function markPagedNotRead(data: string): Promise<NorRun> {
  return runNorAsync([
    ...["mark", "paged", "--not-read", "--reason", "the clerk asked us to stop"],
    ...["--data", data],
  ]);
}

/** The paths `site` was asked for in requests that started after `at`. */
export function askedAfter(site: FleetServer, at: number): string[] {
  return site.requests.filter((q) => q.startedAt > at).map((q) => q.path);
}
