/**
 * Fixtures in test/fixtures/platforms/ that no preset reads, each with the reason. They are
 * claimed here so the corpus test still sees every file claimed once; the generic extractors
 * (src/sources/extract) own the Ohio site-specific pages.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getPlatform } from "../../../src/sources/platforms/index.js";
import { FIXTURES } from "./helpers.js";

const NO_PRESET: Record<string, string> = {
  "accela/FL_lakealfred_Accela_CapHome_Building.html":
    "a search form only (P5 form fill); the result grid is not captured",
  "tyler/FL_hernando_energov_search_page1_anonymized.json":
    "EnerGov search API: anonymized by its author, request contract not captured",
  "tyler/FL_tyler_selfservice_recorder_results_sample.html":
    "recorder search fragment: the search request is not captured",
  "ohio-city-html/OH_akron_metro_rta_board_meetings.html":
    "one site's own page: a generic recipe, not a platform",
  "ohio-city-html/OH_cleveland_design_review_schedule.html":
    "one site's own page: a generic recipe, not a platform",
  "ohio-city-html/OH_cleveland_landmarks_agenda.html":
    "one site's own page: a generic recipe, not a platform",
  "ohio-county-html/OH_cincinnati_metro_housing_authority_calendar_admin-ajax.json":
    "WordPress calendar JSON: a generic recipe",
  "ohio-county-html/OH_cuyahoga_board_of_control.html": "Sitefinity table: a generic recipe",
  "ohio-county-html/OH_cuyahoga_board_of_elections_calendar.html":
    "Sitefinity list: a generic recipe",
  "ohio-county-html/OH_cuyahoga_county_council_calendar.json":
    "Kendo scheduler JSON: a generic recipe",
  "ohio-county-html/OH_neorsd_document_library_agendas.html":
    "document library table: a generic recipe",
  "ohio-county-html/OH_summit_county_board_of_control.html": "Joomla link lists: a generic recipe",
  "ohio-county-html/OH_summit_veterans_google_calendar.json":
    "Google Calendar API JSON: a generic recipe",
};

describe("fixtures no preset reads", () => {
  it.each(Object.entries(NO_PRESET))("%s has no preset (%s)", (file) => {
    expect(existsSync(`${FIXTURES}${file}`)).toBe(true);
    expect(getPlatform(file.split("/")[0]!)).toBeUndefined();
  });
});
