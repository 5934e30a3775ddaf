import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { buildFixture, catalog, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * docs/api.md's night states on the pages: with a catalog imported and no night ever run, "/"
 * and "/new" say what /api/new says (no night has run, tonight's has not started), so a visitor
 * can tell "never checked" from "nothing new". Once nights run, tonight's not having started
 * yet is no news and stays unsaid, as before.
 */
let dir: string;
let store: Store;
let fresh: ReturnType<typeof createApp>;
let f: Fixture;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-never-checked-"));
  store = await openStore({ kind: "sqlite", dir });
  const c = catalog();
  await importCatalog(
    store.db,
    c,
    {
      governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    NOW - 3_600_000,
  );
  fresh = createApp({ db: store.db, now: () => NOW, origin: ORIGIN });
  f = await buildFixture();
});
afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await f?.close();
});

type Nights = { night: string; state: string; text: string }[];
const apiNights = async (app: ReturnType<typeof createApp>, q = "") =>
  ((await (await app.request(`/api/new${q}`)).json()) as { nights: Nights }).nights;
const notes = async (app: ReturnType<typeof createApp>, path: string) => {
  const res = await app.request(path);
  expect(res.status, path).toBe(200);
  const $ = load(await res.text());
  return $(".night-notes li")
    .toArray()
    .map((li) => ({
      night: $(li).attr("data-night"),
      state: $(li).attr("data-state"),
      text: $(li).text(),
    }));
};

describe("docs/api.md night states: before the first night", () => {
  it("the home page and /new say what /api/new says when no night has run yet", async () => {
    const api = await apiNights(fresh);
    expect(api.map((n) => [n.night, n.state])).toEqual([
      ["2026-11-05", "not-yet"],
      ["2026-11-04", "not-yet"],
    ]);
    expect(api[0]?.text).toBe(
      "No night has run yet: nothing has been checked (the night of Nov 5 included).",
    );
    expect(api[1]?.text).toBe("No night has run yet: nothing was checked on the night of Nov 4.");
    for (const path of ["/", "/new"]) {
      expect(await notes(fresh, path), path).toEqual(
        api.map((n) => ({ night: n.night, state: n.state, text: n.text })),
      );
    }
    // The week: every night says so, on the page as in the API.
    const week = await apiNights(fresh, "?window=7d");
    expect(week).toHaveLength(7);
    expect((await notes(fresh, "/new?window=7d")).map((n) => n.text)).toEqual(
      week.map((n) => n.text),
    );
  });

  it("a night before the directory's first says so on the page too", async () => {
    // The fixture's first night is Oct 25: Oct 20 came before it.
    expect(await notes(f.app, "/new?night=2026-10-20")).toEqual([
      {
        night: "2026-10-20",
        state: "not-yet",
        text: "The night of Oct 20 came before the directory began checking.",
      },
    ]);
  });

  it("once nights run, tonight's not having started is not said (the other states unchanged)", async () => {
    // Nov 6, 15:00 UTC: the night of Nov 5 finished, the night of Nov 6 not started yet.
    const next = createApp({ db: f.store.db, now: () => NOW + 86_400_000, origin: ORIGIN });
    const api = await apiNights(next);
    expect(api.map((n) => n.state)).toEqual(["not-yet", "finished"]);
    for (const path of ["/", "/new"]) expect(await notes(next, path), path).toEqual([]);
    // And the fixture's own day: both nights finished, nothing said.
    expect(await notes(f.app, "/")).toEqual([]);
  });
});
