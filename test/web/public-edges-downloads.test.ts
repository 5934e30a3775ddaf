import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import type { Db } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import type { Database } from "../../src/store/schema/index.js";
import { createApp } from "../../src/web/app.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { buildFixture, catalog, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * The bulk downloads' ETags change whenever their bytes could: a catalog import that renames a
 * government and a record page changes every file's tag (an old If-None-Match is a 200 with
 * the new bytes, never a 304), and every record a night writes changes the records files' tag,
 * while the night runs and after, and a person's mark changes the record pages' files' tags (they
 * say each page's read status, P26); a tag a client still holds is a 304 made from a few index
 * lookups, never from reading the file (EXPLAIN QUERY PLAN, never timing).
 */
const FILES = [
  "/downloads/governments.csv",
  "/downloads/governments.json",
  "/downloads/sources.csv",
  "/downloads/sources.json",
  "/downloads/records.csv",
  "/downloads/records.json",
  "/downloads/records.csv?county=Franklin",
] as const;

type App = ReturnType<typeof createApp>;

async function get(app: App, path: string, etag?: string) {
  const res = await app.request(path, etag ? { headers: { "if-none-match": etag } } : {});
  return { status: res.status, etag: res.headers.get("etag") ?? "", body: await res.text() };
}

async function tags(app: App): Promise<Map<string, { etag: string; body: string }>> {
  const out = new Map<string, { etag: string; body: string }>();
  for (const p of FILES) {
    const r = await get(app, p);
    expect(r.status, p).toBe(200);
    expect(r.etag, p).toMatch(/^W\/"[^"]+"$/);
    out.set(p, r);
  }
  return out;
}

const files = (xs: { id: string }[]) => new Map(xs.map((x) => [x.id, "catalog.yaml"]));

/** The fixture's catalog as it stands (old-permits retired), with a government and a page renamed. */
function renamed(): Catalog {
  const c = catalog();
  return {
    ...c,
    governments: c.governments.map((g) =>
      g.id === "village-of-test" ? { ...g, name: "Village of Renamed" } : g,
    ),
    sources: c.sources
      .filter((s) => s.id !== "old-permits")
      .map((s) => (s.id === "test-agendas" ? { ...s, name: "Renamed agendas" } : s)),
  };
}

function result(sourceId: string, at: number, ids: string[]): SourceResult {
  return {
    sourceId,
    outcome: { kind: "ok", url: "https://test.example/agendas.rss" },
    records: ids.map((id) => ({
      id,
      title: `Agenda ${id}`,
      date: "2026-11-06",
      url: `https://test.example/${id}`,
    })),
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  };
}

/** The whole story on one store: a catalog import, a running night, an old night opened again. */
async function etagsFollowTheBytes(f: Fixture): Promise<void> {
  const app = f.app;
  const db: Db = f.store.db;
  const before = await tags(app);
  // Nothing changed: the same tags, and a client holding one gets a 304 without a body.
  for (const [p, r] of await tags(app)) expect(r.etag, p).toBe(before.get(p)?.etag);
  for (const [p, r] of before) {
    const again = await get(app, p, r.etag);
    expect(again.status, p).toBe(304);
    expect(again.body, p).toBe("");
    expect(again.etag, p).toBe(r.etag);
  }

  // (a) A catalog import renames a government and a record page.
  const c = renamed();
  const { governments, sources } = { governments: files(c.governments), sources: files(c.sources) };
  await importCatalog(db, c, { governments, sources }, NOW + 60_000);
  const afterImport = await tags(app);
  expect(afterImport.get("/downloads/governments.csv")?.body).toContain("Village of Renamed");
  expect(afterImport.get("/downloads/sources.csv")?.body).toContain("Renamed agendas");
  for (const [p, r] of afterImport) {
    const old = before.get(p);
    expect(r.etag, p).not.toBe(old?.etag);
    // The old tag is not a 304: the client gets the new bytes.
    const cond = await get(app, p, old?.etag);
    expect(cond.status, p).toBe(200);
    expect(cond.body, p).toBe(r.body);
    expect((await get(app, p, r.etag)).status, p).toBe(304);
  }

  // (b) A night under way writes records: the records files' tag moves with every record.
  const night = new SqlNightStore(db);
  const start = Date.parse("2026-11-07T03:00:00.000Z");
  await night.openNight("2026-11-06", start, start + 6 * 3_600_000);
  const opened = await tags(app);
  await night.commit("2026-11-06", result("test-agendas", start + 60_000, ["n1", "n2"]));
  const two = await tags(app);
  for (const p of ["/downloads/records.csv", "/downloads/records.json"]) {
    expect(two.get(p)?.body, p).toContain("Agenda n1");
    expect(two.get(p)?.etag, p).not.toBe(opened.get(p)?.etag);
    expect((await get(app, p, opened.get(p)?.etag)).status, p).toBe(200);
  }
  // Franklin's records hold them too (test-agendas is in Franklin County).
  expect(two.get("/downloads/records.csv?county=Franklin")?.etag).not.toBe(
    opened.get("/downloads/records.csv?county=Franklin")?.etag,
  );
  // A page that saw nothing new writes no record: nothing moves, a held tag is still a 304.
  await night.commit("2026-11-06", result("evil-notices", start + 120_000, []));
  for (const [p, r] of await tags(app)) expect(r.etag, p).toBe(two.get(p)?.etag);
  await night.commit("2026-11-06", result("test-bids", start + 180_000, ["n3"]));
  const three = await tags(app);
  expect(three.get("/downloads/records.csv")?.body).toContain("Agenda n3");
  expect(three.get("/downloads/records.csv")?.etag).not.toBe(
    two.get("/downloads/records.csv")?.etag,
  );
  await night.finishNight("2026-11-06", start + 3_600_000);
  const finished = await tags(app);

  // An old night opened again (`nor night --night`), given a record and finished once more:
  // the files differ from before it was opened, and so do their tags.
  // (akron-minutes was not checked on the night of 11-04.)
  const old = Date.parse("2026-11-05T03:00:00.000Z");
  await night.openNight("2026-11-04", old, old + 6 * 3_600_000);
  const lateAt = Date.parse("2026-11-07T05:00:00.000Z");
  await night.commit("2026-11-04", result("akron-minutes", lateAt, ["late"]));
  await night.finishNight("2026-11-04", lateAt + 60_000);
  const late = await tags(app);
  for (const p of ["/downloads/records.csv", "/downloads/records.json"]) {
    expect(late.get(p)?.body, p).toContain("Agenda late");
    expect(late.get(p)?.etag, p).not.toBe(finished.get(p)?.etag);
    expect((await get(app, p, finished.get(p)?.etag)).status, p).toBe(200);
  }
  // The catalog's files did not change, nor did their tags.
  for (const p of FILES.filter((x) => !x.includes("records"))) {
    expect(late.get(p)?.etag, p).toBe(afterImport.get(p)?.etag);
  }

  // (c) A person marks a record page not read (P24): the record pages' files say so (P26), and
  // their tags move; the others' do not.
  const marked = await markSource(db, {
    source: "test-bids",
    reading: false,
    reason: "the list moved behind a sign-in",
    by: "operator",
    at: lateAt + 120_000,
    night: "2026-11-06",
  });
  expect(marked.kind).toBe("marked");
  const afterMark = await tags(app);
  for (const [p, r] of afterMark) {
    if (!p.startsWith("/downloads/sources.")) {
      expect(r.etag, p).toBe(late.get(p)?.etag);
      continue;
    }
    expect(r.body, p).toContain("the list moved behind a sign-in");
    expect(r.etag, p).not.toBe(late.get(p)?.etag);
    expect((await get(app, p, late.get(p)?.etag)).status, p).toBe(200);
  }
}

describe("download ETags follow the bytes", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it("P26: a catalog rename, each record a night writes (under way or an old night opened again), a person's mark (the record pages' files) change the ETag; nothing else does", async () => {
    await etagsFollowTheBytes(f);
  });
});

describe.skipIf(!postgresUrl)("download ETags follow the bytes, on PostgreSQL", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture(await factory.migrated());
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await factory.cleanup();
  });

  it("P26: a catalog rename, each record a night writes (under way or an old night opened again), a person's mark (the record pages' files) change the ETag; nothing else does", async () => {
    await etagsFollowTheBytes(f);
  });
});

describe("a download a client already holds is a 304 from a few index lookups", () => {
  let f: Fixture;
  let plain: Sqlite.Database;
  let app: App;
  const captured: CompiledQuery[] = [];
  beforeAll(async () => {
    f = await buildFixture();
    // A night under way, so the records' marker counts one night's records too.
    const night = new SqlNightStore(f.store.db);
    const start = Date.parse("2026-11-07T03:00:00.000Z");
    await night.openNight("2026-11-06", start, start + 6 * 3_600_000);
    await night.commit("2026-11-06", result("test-agendas", start + 60_000, ["n1", "n2"]));
    plain = new Sqlite(join(f.dir, "nor.db"), { readonly: true });
    const logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: plain }),
      log: (e) => {
        if (e.level === "query") captured.push(e.query);
      },
    });
    app = createApp({
      db: f.store.db,
      reads: { public: logged, console: logged },
      now: () => NOW,
      origin: ORIGIN,
    });
  });
  afterAll(async () => {
    plain?.close();
    await f?.close();
  });

  const planOf = (q: CompiledQuery) =>
    plain
      .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
      .all(...(q.parameters as unknown[]))
      .map((r) => (r as { detail: string }).detail)
      .join("\n");

  it("no statement of a conditional GET reads records, the catalog or its changes whole; the records are counted for the night under way from its index alone", async () => {
    for (const p of FILES) {
      const first = await get(app, p);
      expect(first.status, p).toBe(200);
      captured.length = 0;
      const again = await get(app, p, first.etag);
      expect(again.status, p).toBe(304);
      expect(captured.length, p).toBeGreaterThan(0);
      const plans = captured.map((q) => ({ sql: q.sql, plan: planOf(q) }));
      for (const { sql, plan } of plans) {
        expect(plan, `${p}: ${sql}`).not.toMatch(
          /\bSCAN (records|catalog_changes|sources|night_sources|request_log)\b/,
        );
        // A county asked for is checked against the governments' counties, as /new checks it.
        if (!p.includes("county="))
          expect(plan, `${p}: ${sql}`).not.toMatch(/\bSCAN governments\b/);
      }
      // The catalog's latest change: read from the end of its primary key.
      const changes = plans.filter((x) => /from "catalog_changes"/.test(x.sql));
      expect(changes, p).toHaveLength(1);
      expect(changes[0]?.plan, p).toMatch(/SEARCH catalog_changes/);
      if (p.includes("records")) {
        const counted = plans.filter((x) => /from "records"/.test(x.sql));
        expect(counted, p).toHaveLength(1);
        expect(counted[0]?.plan, p).toMatch(
          /USING COVERING INDEX records_by_night \(first_seen_night=\?\)/,
        );
      } else {
        expect(
          plans.filter((x) => /from "(records|nights)"/.test(x.sql)),
          p,
        ).toEqual([]);
      }
    }
  });
});
