import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { settleUnfinishedNights } from "../../src/store/admin.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { consoleFixture } from "./console-support.js";

/**
 * An outside tester's finding (O7): a night interrupted (its process killed) and not resumed
 * before its time was over is closed incomplete, as `nor status` says; the public pages, the API
 * and the console said it "finished". Now each says what `nor status` says.
 */
const CATALOG = `
governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
sources:
  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, url: "https://test.example/agendas.rss" }
  - { id: test-bids, government: village-of-test, records: bids, access: feed, url: "https://test.example/bids.rss" }
`;
const HOUR = 3_600_000;
const DONE = "2026-11-03"; // run to its end
const CUT = "2026-11-04"; // interrupted, closed incomplete
const DONE_AT = Date.parse("2026-11-03T06:00:00.000Z");
const CUT_AT = Date.parse("2026-11-04T06:00:00.000Z");

const result = (id: string, at: number): SourceResult => ({
  sourceId: id,
  outcome: { kind: "ok", url: `https://test.example/${id}` },
  records: [],
  validators: [],
  flags: [],
  startedAt: at,
  endedAt: at + 1000,
});

let f: Awaited<ReturnType<typeof consoleFixture>>;

beforeAll(async () => {
  f = await consoleFixture();
  const cat = parseCatalog(CATALOG, "catalog.yaml");
  await importCatalog(
    f.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    DONE_AT - 24 * HOUR,
  );
  const night = new SqlNightStore(f.db);
  const rows = cat.sources.map((s) => ({
    id: s.id,
    government: s.government,
    url: s.url,
    site: new URL(s.url).origin,
  }));
  await night.openNight(DONE, DONE_AT, DONE_AT + 6 * HOUR);
  await night.syncSources(rows, DONE_AT);
  for (const s of rows) await night.commit(DONE, result(s.id, DONE_AT + 60_000));
  await night.finishNight(DONE, DONE_AT + HOUR);
  // The next night reaches one source, then its process is killed; its time runs out.
  await night.openNight(CUT, CUT_AT, CUT_AT + 6 * HOUR);
  await night.syncSources(rows, CUT_AT);
  await night.commit(CUT, result("test-agendas", CUT_AT + 60_000));
  const settled = await settleUnfinishedNights(f.db, CUT_AT + 7 * HOUR);
  expect(settled.closed.map((c) => c.night)).toEqual([CUT]);
  await f.clock.advance(CUT_AT + 8 * HOUR - f.clock.now());
});
afterAll(async () => {
  await f?.close();
});

describe("P13, P23: a night closed incomplete is said so, never 'finished'", () => {
  it("the API and /new: state incomplete for it, finished for the night run to its end", async () => {
    for (const [night, state] of [
      [CUT, "incomplete"],
      [DONE, "finished"],
    ] as const) {
      const res = await f.app.request(`/api/new?night=${night}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        nights: { night: string; state: string; text: string }[];
      };
      const n = body.nights.find((x) => x.night === night);
      expect(n?.state, JSON.stringify(body.nights)).toBe(state);
      if (state === "incomplete") {
        expect(n?.text).toContain("was interrupted and ended before it finished");
        expect(n?.text).not.toContain("finished 0");
      }
      // The page says a night that did not run to its end (one that did goes unsaid).
      const page = load(await (await f.app.request(`/new?night=${night}`)).text());
      expect(page("body").text().includes("was interrupted and ended before it finished")).toBe(
        state === "incomplete",
      );
    }
  });

  it("the console's nights and the night's report say closed incomplete, as nor status does", async () => {
    const b = f.browser();
    expect((await b.signIn()).status).toBe(303);
    const list = load(await (await b.get("/console/nights")).text());
    const cut = list(`a[href$="/nights/${CUT}"]`).closest("tr").text();
    const done = list(`a[href$="/nights/${DONE}"]`).closest("tr").text();
    expect(cut).toContain("closed incomplete");
    expect(done).not.toContain("incomplete");
    const report = load(await (await b.get(`/console/nights/${CUT}`)).text());
    expect(report("body").text()).toContain("closed incomplete");
    expect(report("body").text()).not.toMatch(/\bfinished \d/);
  });
});
