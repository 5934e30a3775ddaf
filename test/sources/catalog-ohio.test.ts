import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/sources/catalog/load.js";
import { extractWay } from "../../src/sources/extract/index.js";

const catalog = loadCatalog([new URL("../../catalog/ohio.yaml", import.meta.url).pathname]);
const fx = (path: string) =>
  new Uint8Array(readFileSync(new URL(`../fixtures/platforms/${path}`, import.meta.url)));

/** Saved copies of pages the starter catalog reads with a recipe: URL → fixture, count. */
const SAVED: [string, string, number][] = [
  [
    "https://planning.clevelandohio.gov/landmark/agenda.php",
    "ohio-city-html/OH_cleveland_landmarks_agenda.html",
    43,
  ],
  [
    "https://planning.clevelandohio.gov/designreview/schedule.php",
    "ohio-city-html/OH_cleveland_design_review_schedule.html",
    134,
  ],
  [
    "https://cuyahogacounty.gov/boards-and-commissions/board-details/internal/board-of-control",
    "ohio-county-html/OH_cuyahoga_board_of_control.html",
    5,
  ],
  [
    "https://www.akronmetro.org/metro-board-meetings.aspx",
    "ohio-city-html/OH_akron_metro_rta_board_meetings.html",
    25,
  ],
  [
    "https://co.summitoh.net/index.php/offices/boards-agencies-a-commissions/board-of-control",
    "ohio-county-html/OH_summit_county_board_of_control.html",
    407,
  ],
  [
    "https://www.neorsd.org/document-library/?PAGE=2&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit",
    "ohio-county-html/OH_neorsd_document_library_agendas.html",
    10,
  ],
];

describe("catalog/ohio.yaml, the starter catalog", () => {
  it("lists every seed government and only unconfirmed sources with evidence", () => {
    expect(catalog.governments).toHaveLength(284);
    expect(catalog.sources.length).toBeGreaterThan(150);
    for (const s of catalog.sources) {
      expect(s.confirmed).toBe(false);
      expect(s.evidence).toBeTruthy();
      expect(s.url).toMatch(/^https?:\/\//);
    }
  });

  it.each(SAVED)("P6: its recipe for %s reads the saved copy", (url, file, count) => {
    const s = catalog.sources.find((x) => x.url === url);
    expect(s?.extract).toBeDefined();
    const x = extractWay(s!, fx(file), url);
    expect(x.records).toHaveLength(count);
  });
});
