import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadCatalog } from "../../src/sources/catalog/load.js";
import { extractWay } from "../../src/sources/extract/index.js";
import { getPlatform } from "../../src/sources/platforms/index.js";
import { openStore } from "../../src/store/db.js";
import { nor } from "../cli/cli-capture.js";

const FILE = new URL("../../catalog/ohio.yaml", import.meta.url).pathname;
const catalog = loadCatalog([FILE]);
const leads = (parse(readFileSync(FILE, "utf8")) as { leads: Record<string, string>[] }).leads;
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
    // "October 19" and "November 2" share one agenda's link: two rows, two records.
    135,
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
    // The minutes of 02-28-18 link the 03-07-18 file: two rows, two records.
    408,
  ],
  [
    "https://www.neorsd.org/document-library/?PAGE=2&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit",
    "ohio-county-html/OH_neorsd_document_library_agendas.html",
    10,
  ],
];

describe("catalog/ohio.yaml, the starter catalog", () => {
  it("P24: lists every seed government, and every record page as an unconfirmed source or a lead, each with its evidence", () => {
    // The seed's 783 governments; its 733 record pages and 23 single-meeting links.
    expect(catalog.governments).toHaveLength(783);
    expect(catalog.sources.length + leads.length).toBe(733 + 23);
    expect(catalog.sources.length).toBe(632);
    for (const s of catalog.sources) {
      expect(s.confirmed).toBe(false);
      expect(s.evidence).toBeTruthy();
      expect(s.url).toMatch(/^https?:\/\//);
    }
    for (const l of leads) {
      expect(l.why).toBeTruthy();
      expect(l.evidence).toBeTruthy();
    }
  });

  it("P6 (ot-catalog): no two sources ask the same (one list read twice would be fetched twice and list each record twice)", () => {
    const asked = new Map<string, string>();
    const twice: string[] = [];
    for (const s of catalog.sources) {
      const req = s.platform ? getPlatform(s.platform)?.firstRequest(s.url, 0) : undefined;
      const key = req ? `${req.method} ${req.url} ${req.body ?? ""}` : `GET ${s.url}`;
      const first = asked.get(key);
      if (first) twice.push(`${first} and ${s.id}: ${key}`);
      else asked.set(key, s.id);
    }
    expect(twice).toEqual([]);
  });

  it("imports into a fresh SQLite store: every government and source, none confirmed; again, nothing changes", async () => {
    const data = join(mkdtempSync(join(tmpdir(), "nor-ohio-")), "data");
    const first = await nor("catalog", "import", "catalog/ohio.yaml", "--data", data);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("governments: 783 added, 0 changed, 0 retired, 0 un-retired");
    expect(first.stdout).toContain("sources: 632 added, 0 changed, 0 retired, 0 un-retired");
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const rows = await store.db
        .selectFrom("sources")
        .select(["id", "confirmed", "catalog_file"])
        .execute();
      expect(rows.map((r) => r.id).sort()).toEqual(catalog.sources.map((s) => s.id).sort());
      expect(rows.every((r) => r.confirmed === 0 && r.catalog_file === "catalog/ohio.yaml")).toBe(
        true,
      );
      const govs = await store.db.selectFrom("governments").select("id").execute();
      expect(govs).toHaveLength(783);
      // Every lead is listed, for the directory to show as not yet confirmed.
      const leads = await store.db.selectFrom("leads").select("government_id").execute();
      expect(leads).toHaveLength(catalog.leads.length);
    } finally {
      await store.close();
    }
    const again = await nor("catalog", "import", "catalog/ohio.yaml", "--data", data);
    expect(again.stdout).toBe(
      "governments: 0 added, 0 changed, 0 retired, 0 un-retired\nsources: 0 added, 0 changed, 0 retired, 0 un-retired\n1415 unchanged\nleads: 124 listed (0 added, 0 no longer listed)\n",
    );
  });

  it.each(SAVED)("P6: its recipe for %s reads the saved copy", (url, file, count) => {
    const s = catalog.sources.find((x) => x.url === url);
    expect(s?.extract).toBeDefined();
    const x = extractWay(s!, fx(file), url);
    expect(x.records).toHaveLength(count);
  });
});
