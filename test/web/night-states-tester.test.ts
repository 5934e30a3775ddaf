import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";

/**
 * What the directory says of a night, as an outside tester found it wrong:
 * - sources added to the catalog and checked by the same night resumed: "Nothing could be new
 *   that night: it came before this page was listed", beside the records it first saw;
 * - a selection no record page matches: "it came before any page in this selection was listed",
 *   as if pages were coming;
 * - a source page while tonight's night runs: "not checked that night", the state of a night
 *   that ran without it.
 */
const CATALOG = (extra: string) => `
governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
  - { id: city-of-akron, name: City of Akron, kind: city, county: Summit }
sources:
  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, url: "https://test.example/agendas.rss" }
  - { id: akron-minutes, government: city-of-akron, records: minutes, access: feed, url: "https://akron.example/minutes.rss" }
${extra}`;
const LATE = `  - { id: late-bids, government: village-of-test, records: bids, access: feed, url: "https://test.example/bids.rss" }`;
const HOUR = 3_600_000;
const NIGHT = "2026-11-05";
const STARTED = Date.parse("2026-11-05T06:00:00.000Z"); // 01:00 New York
const TONIGHT = "2026-11-06";
const TONIGHT_STARTED = Date.parse("2026-11-06T06:00:00.000Z");
const NOW = TONIGHT_STARTED + HOUR; // tonight's night under way

let store: Store;
let dir: string;
let app: ReturnType<typeof createApp>;

const origins = (c: ReturnType<typeof parseCatalog>) => ({
  governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
  sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
});

const result = (id: string, at: number, title?: string): SourceResult => ({
  sourceId: id,
  outcome: { kind: "ok", url: `https://test.example/${id}` },
  records: title
    ? [{ id: `https://test.example/${id}/1`, title, url: `https://test.example/${id}/1` }]
    : [],
  validators: [],
  flags: [],
  startedAt: at,
  endedAt: at + 1000,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-web-night-states-"));
  store = await openStore({ kind: "sqlite", dir });
  const first = parseCatalog(CATALOG(""), "catalog.yaml");
  await importCatalog(store.db, first, origins(first), STARTED - 24 * HOUR);
  const night = new SqlNightStore(store.db);
  const rows = (c: ReturnType<typeof parseCatalog>) =>
    c.sources.map((s) => ({
      id: s.id,
      government: s.government,
      url: s.url,
      site: new URL(s.url).origin,
    }));
  await night.openNight(NIGHT, STARTED, STARTED + 6 * HOUR);
  await night.syncSources(rows(first), STARTED);
  await night.commit(NIGHT, result("test-agendas", STARTED + 60_000));
  await night.commit(NIGHT, result("akron-minutes", STARTED + 90_000));
  await night.finishNight(NIGHT, STARTED + HOUR);
  // A source added after the night began, and the same night run again for it.
  const later = parseCatalog(CATALOG(LATE), "catalog.yaml");
  await importCatalog(store.db, later, origins(later), STARTED + 2 * HOUR);
  await night.openNight(NIGHT, STARTED + 2 * HOUR, STARTED + 6 * HOUR);
  await night.syncSources(rows(later), STARTED + 2 * HOUR);
  await night.commit(NIGHT, result("late-bids", STARTED + 2 * HOUR + 60_000, "Road salt"));
  await night.finishNight(NIGHT, STARTED + 3 * HOUR);
  // Tonight's night, under way: test-agendas checked, late-bids not reached yet.
  await night.openNight(TONIGHT, TONIGHT_STARTED, TONIGHT_STARTED + 6 * HOUR);
  await night.syncSources(rows(later), TONIGHT_STARTED);
  await night.commit(TONIGHT, result("test-agendas", TONIGHT_STARTED + 60_000));
  app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type NewAnswer = {
  nights: { night: string; state: string; text: string }[];
  counts: { total: number };
};
const newApi = async (q: string) => {
  const res = await app.request(`/api/new?${q}`);
  expect(res.status, q).toBe(200);
  return (await res.json()) as NewAnswer;
};

describe("what the directory says of a night", () => {
  it("P6, P23: a source added and checked by a night resumed after it began: that night is its own state, beside the records it first saw", async () => {
    const a = await newApi(`night=${NIGHT}&source=late-bids`);
    // Its first read: what it listed was there before, counted apart, not new.
    expect(a.counts).toMatchObject({ total: 0, alreadyListed: 1 });
    expect(a.nights.map((n) => n.state)).toEqual(["finished"]);
    const page = load(await (await app.request(`/new?night=${NIGHT}&source=late-bids`)).text());
    expect(page(".night-notes").text()).not.toContain("Nothing could be new");
    expect(page(".window").text()).toContain(
      "Not counted: 1 record that its page already listed when New on Record first read it",
    );
  });

  it("P23: a selection no record page matches says so, not that its pages came later", async () => {
    const a = await newApi(`night=${NIGHT}&county=Summit&kind=village`);
    expect(a.nights).toEqual([
      {
        night: NIGHT,
        state: "not-listed",
        text: "Nothing could be new on the night of Nov 5: no record page in the directory matches this selection.",
      },
    ]);
  });

  it("P23: while tonight's night runs, a source it has not reached yet says so, not that the night ran without it", async () => {
    const res = await app.request("/api/sources/late-bids");
    expect(res.status).toBe(200);
    const a = (await res.json()) as { nights: { night: string; state: string }[] };
    expect(a.nights[0]).toMatchObject({ night: TONIGHT, state: "running" });
    expect(a.nights[1]).toMatchObject({ night: NIGHT, state: "checked" });
    const checked = (await (await app.request("/api/sources/test-agendas")).json()) as {
      nights: { night: string; state: string }[];
    };
    expect(checked.nights[0]).toMatchObject({ night: TONIGHT, state: "checked" });
    const page = load(await (await app.request("/sources/late-bids")).text());
    expect(page(`tr#night-${TONIGHT}`).attr("data-state")).toBe("running");
    expect(page(`tr#night-${TONIGHT}`).text()).toContain(
      "that night is still running: not reached yet",
    );
    // A page marked not read is asked only on its recheck nights: not said to be coming.
    await markSource(store.db, {
      source: "late-bids",
      reading: false,
      reason: "the clerk asked",
      by: "operator",
      at: NOW - 60_000,
      night: TONIGHT,
    });
    const marked = (await (await app.request("/api/sources/late-bids")).json()) as {
      nights: { night: string; state: string }[];
    };
    expect(marked.nights[0]).toMatchObject({ night: TONIGHT, state: "not-checked" });
  });
});
