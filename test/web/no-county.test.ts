import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { importYaml } from "./catalog-store.js";

/**
 * An outside tester's finding (ot-public): the shipped catalog leaves the county of five cities
 * and townships empty (City of Shaker Heights, Etna Township, …) and has no state agency without
 * one, so /governments listed those five under "Statewide and other". A group without a county
 * that holds a local government is headed "No county listed".
 */
const NOW = Date.parse("2026-11-05T15:00:00.000Z");
let dir: string;
let store: Store;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-no-county-"));
  store = await openStore({ kind: "sqlite", dir });
  await importYaml(
    store.db,
    `governments:
  - { id: city-of-shaker-heights, name: City of Shaker Heights, kind: city }
  - { id: etna-township, name: Etna Township, kind: township }
  - { id: summit-county, name: Summit County, kind: county, county: Summit }
`,
    NOW - 86_400_000,
  );
  app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("governments without a county", () => {
  it("cities and townships whose county is not given are not called statewide", async () => {
    const $ = load(await (await app.request("/governments")).text());
    expect(
      $("section.county h2")
        .map((_i, h) => $(h).text())
        .get(),
    ).toEqual(["Summit County", "No county listed"]);
    expect($("main").text()).not.toContain("Statewide");
  });
});
