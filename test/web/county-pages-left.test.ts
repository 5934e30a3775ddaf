import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { migratedSqliteIn } from "../store/stores.js";
import { catalog, ORIGIN } from "./fixture.js";

/**
 * Found by the reviewer `rev1` of edd33dd ("now", not "yet", of a government whose record pages
 * all left the catalog): the county page's count line still said "none has a record page listed
 * yet" of a county whose governments' pages had all left, as if they had never had one.
 */
describe("a county whose governments' record pages all left the catalog: its count line says none is listed now, never 'yet'", () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-county-left-"));
    await migratedSqliteIn(dir);
    store = await openStore({ kind: "sqlite", dir });
    const c = catalog();
    const origins = {
      governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
    };
    await importCatalog(store.db, c, origins, Date.parse("2026-11-05T12:00:00.000Z"));
    // Summit County's two governments (City of Akron, the township) keep their places; their
    // record pages leave the catalog.
    const left = {
      ...c,
      sources: c.sources.filter((s) => s.id !== "akron-minutes" && s.id !== "evil-notices"),
    };
    const out = await importCatalog(
      store.db,
      left,
      origins,
      Date.parse("2026-11-06T12:00:00.000Z"),
      {
        allowRetire: true,
      },
    );
    expect(out.kind).toBe("imported");
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("/counties/Summit", async () => {
    const app = createApp({
      db: store.db,
      now: () => Date.parse("2026-11-07T12:00:00.000Z"),
      origin: ORIGIN,
    });
    const res = await app.request("/counties/Summit");
    expect(res.status).toBe(200);
    const main = load(await res.text())("main").text();
    expect(main).toContain(
      "2 governments in Summit County are listed; none has a record page listed now.",
    );
    expect(main).not.toContain("yet");
  });
});
