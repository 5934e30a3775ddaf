import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource, statusRows } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { migratedSqliteIn } from "../store/stores.js";

/**
 * P26 at a fleet's size: the record pages' downloads of a catalog whose pages are on more
 * sites than one SQL statement may name (SQLite's 32,766 variables; the benchmarks' nights run
 * 27,000 sites and more) still say each page's status, a site owner's request and a person's
 * mark among them, as `/api/sources/:id` does. Asked over HTTP on loopback.
 */
const SITES = 33_000;
const NOW = Date.parse("2026-11-05T15:00:00.000Z");

/** The catalog's text of n sources on n sites, as `nor catalog import` would read it. */
function scaleText(n: number): string {
  const lines = [
    "governments:",
    "  - { id: gov, name: Gov, kind: village, county: Franklin }",
    "sources:",
  ];
  for (let i = 0; i < n; i++)
    lines.push(
      `  - { id: s${i}, government: gov, records: agendas, access: feed, url: "https://s${i}.example/feed" }`,
    );
  return lines.join("\n");
}

/**
 * The same catalog without YAML's parse of 33,000 entries (4 s of CPU, the catalog reader's
 * own work, not what this file proves): one source read by parseCatalog, copied with each
 * copy's id and url. The first test checks the copies equal parseCatalog's read of the text.
 */
function scaleCatalog(n: number): Catalog {
  const one = parseCatalog(scaleText(1), "scale.yaml");
  const [first] = one.sources;
  if (first === undefined) throw new Error("no source read");
  const sources = Array.from({ length: n }, (_, i) => ({
    ...structuredClone(first),
    id: `s${i}`,
    url: `https://s${i}.example/feed`,
  }));
  return { ...one, sources };
}

let store: Store;
let dir = "";
let url = "";
let close: () => Promise<void> = async () => {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-web-scale-"));
  await migratedSqliteIn(dir);
  store = await openStore({ kind: "sqlite", dir });
  const catalog = scaleCatalog(SITES);
  await importCatalog(
    store.db,
    catalog,
    {
      governments: new Map(catalog.governments.map((g) => [g.id, "scale.yaml"])),
      sources: new Map(catalog.sources.map((s) => [s.id, "scale.yaml"])),
    },
    NOW - 86_400_000,
  );
  await setSiteRule(store.db, {
    site: "s32999.example",
    kind: "not-read",
    reason: "asked by e-mail",
    at: NOW - 3_600_000,
    by: "operator",
  });
  await markSource(store.db, {
    source: "s7",
    reading: false,
    reason: '=HYPERLINK("x"), a sign-in',
    by: "operator",
    at: NOW - 1_800_000,
    night: "2026-11-05",
  });
  const app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
  await new Promise<void>((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      url = `http://127.0.0.1:${(info as AddressInfo).port}`;
      close = () =>
        new Promise((done) => {
          if ("closeAllConnections" in server) server.closeAllConnections();
          server.close(() => done());
        });
      resolve();
    });
  });
}, 180_000);

afterAll(async () => {
  await close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Status = { reading: boolean; reason: string | null; since: string | null };

async function apiStatus(id: string): Promise<Status> {
  const res = await fetch(`${url}/api/sources/${id}`);
  expect(res.status, id).toBe(200);
  return ((await res.json()) as { status: Status }).status;
}

describe("the record pages' downloads at a fleet's size", () => {
  it("the catalog made here is the one its text reads as (checked on 500 of its sources)", () => {
    expect(scaleCatalog(500)).toEqual(parseCatalog(scaleText(500), "scale.yaml"));
  });

  it("P26: sources.csv and sources.json of pages on 33,000 sites (more than one SQL statement may name) say each page's status as the API does", async () => {
    const csv = await fetch(`${url}/downloads/sources.csv`);
    expect(csv.status).toBe(200);
    const rows = parse(await csv.text()) as string[][];
    expect(rows.length).toBe(SITES + 1);
    const byId = new Map(rows.slice(1).map((r) => [r[0] as string, r.slice(7)]));
    const json = await fetch(`${url}/downloads/sources.json`);
    expect(json.status).toBe(200);
    const sources = ((await json.json()) as { sources: { id: string; status: Status }[] }).sources;
    expect(sources.length).toBe(SITES);
    const jsonById = new Map(sources.map((s) => [s.id, s.status]));
    for (const id of ["s0", "s7", "s32999", "s16000"]) {
      const api = await apiStatus(id);
      expect(jsonById.get(id), id).toEqual(api);
      // A reason that starts as a formula is written with a leading ' in the CSV, as every cell.
      const reason = api.reason?.startsWith("=") ? `'${api.reason}` : (api.reason ?? "");
      expect(byId.get(id), id).toEqual([api.reading ? "true" : "false", reason, api.since ?? ""]);
    }
    expect(jsonById.get("s32999")?.reading).toBe(false);
    expect(jsonById.get("s7")?.reading).toBe(false);
    expect(jsonById.get("s0")?.reading).toBe(true);
  }, 120_000);

  it("P26: the status rows of every page on 33,000 sites (nor status, the console) say the site owner's request", async () => {
    const rows = await statusRows(store.db);
    expect(rows.length).toBe(SITES);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get("s32999")?.siteNotRead).toBe(
      "the site's owner asked not to be read (asked by e-mail)",
    );
    expect(byId.get("s0")?.siteNotRead).toBeUndefined();
    expect(byId.get("s7")?.reading).toBe(false);
  }, 60_000);
});
