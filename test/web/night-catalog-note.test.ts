import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { recordNightCatalogNote } from "../../src/store/admin.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { consoleFixture } from "./console-support.js";

/**
 * tester-ops O5: a night that ran the sources the store last imported, its catalog files not
 * usable (`nor night --or-stored-catalog`, as `nor start` runs it), says so on the console's
 * list of nights and in its report, with the files' problem as the night kept it.
 */
const CATALOG = `
governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
sources:
  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, url: "https://test.example/agendas.rss" }
`;
const HOUR = 3_600_000;
const NOTED = "2026-11-04";
const PLAIN = "2026-11-03";
const PROBLEM =
  "its catalog files could not be used, so it ran the 1 source the store last imported: catalog has 1 problem:\n/etc/nor/catalog.yaml:5:1: YAML: Flow map in block collection must end with a } <script>";

let f: Awaited<ReturnType<typeof consoleFixture>>;

beforeAll(async () => {
  f = await consoleFixture();
  const cat = parseCatalog(CATALOG, "catalog.yaml");
  const at = Date.parse("2026-11-03T06:00:00.000Z");
  await importCatalog(
    f.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    at - 24 * HOUR,
  );
  const night = new SqlNightStore(f.db);
  for (const [i, n] of [PLAIN, NOTED].entries()) {
    const start = at + i * 24 * HOUR;
    await night.openNight(n, start, start + 6 * HOUR);
    await night.finishNight(n, start + HOUR);
  }
  await recordNightCatalogNote(f.db, NOTED, PROBLEM);
});
afterAll(async () => {
  await f?.close();
});

describe("P13 (tester-ops O5): a night run on the stored catalog, on the console", () => {
  it("the list of nights marks it, and its report gives the files' problem (escaped)", async () => {
    const b = f.browser();
    expect((await b.signIn()).status).toBe(303);
    const list = load(await (await b.get("/console/nights")).text());
    expect(list(`a[href$="/nights/${NOTED}"]`).closest("tr").text()).toContain(
      "its catalog files not used",
    );
    expect(list(`a[href$="/nights/${PLAIN}"]`).closest("tr").text()).not.toContain("catalog files");
    const html = await (await b.get(`/console/nights/${NOTED}`)).text();
    expect(html).not.toContain("<script>");
    const report = load(html);
    expect(report("#catalog-note").text()).toContain("Its catalog files were not used");
    expect(report("#catalog-note pre").text()).toBe(PROBLEM);
    const plain = load(await (await b.get(`/console/nights/${PLAIN}`)).text());
    expect(plain("#catalog-note").length).toBe(0);
  });
});
