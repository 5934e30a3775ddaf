import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { openStore, type Store } from "../../src/store/db.js";
import { storePasswordHash } from "../../src/store/read/console.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import type { Database } from "../../src/store/schema/index.js";
import { createApp } from "../../src/web/app.js";
import { entry } from "../store/entries.js";
import { Browser, hashOf, PASSWORD, seedNight } from "./console-support.js";
import { catalog } from "./fixture.js";

/**
 * P27 and "never block": the statements the console really runs (captured while its pages are
 * rendered, with their real parameters) are read through indexes. EXPLAIN QUERY PLAN, never
 * timing. The overview and a night's report read no table whole, and the request-log search
 * by time window and address (a site, a source, a URL) is driven by an index on the window.
 */
let store: Store;
let dir: string;
let plain: Sqlite.Database;
let b: Browser;
const captured: CompiledQuery[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-console-plans-"));
  store = await openStore({ kind: "sqlite", dir });
  await seedNight(store.db);
  // The public pages' directory: the web tests' catalog (test-agendas, …).
  const c = catalog();
  const files = (xs: { id: string }[]) => new Map(xs.map((x) => [x.id, "catalog.yaml"]));
  await importCatalog(
    store.db,
    c,
    { governments: files(c.governments), sources: files(c.sources) },
    Date.UTC(2026, 10, 1),
  );
  const t0 = Date.UTC(2026, 10, 5, 6);
  await new SqlRequestLog(store.db).appendMany(
    Array.from({ length: 2_000 }, (_, i) =>
      entry({
        startedAt: t0 + i * 1_000,
        night: "2026-11-05",
        site: `site-${i % 7}.gov`,
        url: `https://site-${i % 7}.gov/${i}`,
        source: i % 2 ? "oh-a-agendas" : "oh-b-bids",
      }),
    ),
  );
  plain = new Sqlite(join(dir, "nor.db"), { readonly: true });
  // The console reads through a kysely that writes down every statement it runs.
  const logged = new Kysely<Database>({
    dialect: new SqliteDialect({ database: plain }),
    log: (e) => {
      if (e.level === "query") captured.push(e.query);
    },
  });
  // The operator's password stored at the console fixtures' scrypt cost (console-support.ts
  // hashOf): the console's full-cost hash and check are console-cli's and browser's.
  await storePasswordHash(store.db, hashOf(PASSWORD), Date.UTC(2026, 10, 5, 14));
  const app = createApp({
    db: store.db,
    reads: { public: logged, console: logged },
    now: () => Date.UTC(2026, 10, 5, 14),
    console: {},
  });
  b = new Browser(app);
  expect((await b.signIn()).status).toBe(303);
});

afterAll(async () => {
  plain?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The plan of every statement `path` ran, one string per statement. */
async function plansOf(path: string): Promise<{ sql: string; plan: string }[]> {
  captured.length = 0;
  const res = await b.get(path);
  expect(res.status, path).toBe(200);
  // A download is written as it is read: its statements run while its body is taken.
  await res.arrayBuffer();
  expect(captured.length, path).toBeGreaterThan(0);
  return captured.map((q) => ({ sql: q.sql, plan: planOf(q) }));
}

function planOf(q: CompiledQuery): string {
  return plain
    .prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
    .all(...(q.parameters as unknown[]))
    .map((r) => (r as { detail: string }).detail)
    .join("\n");
}

/** A table read whole: SCAN without an index, or a full pass over one of its indexes. */
const FULL_SCAN =
  /\bSCAN (request_log|night_sources|night_catalog|records|flags|sources|governments)\b/;

describe("the console's statements use indexes", () => {
  it("the overview and a night's report read no table whole", async () => {
    for (const path of ["/console", "/console/nights/2026-11-05"]) {
      for (const { sql, plan } of await plansOf(path)) {
        expect(plan, `${path}: ${sql}`).not.toMatch(FULL_SCAN);
      }
    }
  });

  it("the sources page finds each source's latest night through an index: the rows it reads grow with the sources, not the nights", async () => {
    for (const path of ["/console/sources", "/console/sources/oh-b-bids"]) {
      const plans = await plansOf(path);
      // The latest night per source (the listing's own "not yet in a night's catalog" check
      // names night_catalog too, in a subquery of its own).
      const latest = plans.filter((p) =>
        /\bfrom "night_catalog" as "nc" inner join "night_sources"/.test(p.sql),
      );
      expect(latest, path).toHaveLength(1);
      expect(latest[0]?.plan, path).toMatch(/USING COVERING INDEX night_sources_by_source/);
      for (const { sql, plan } of plans)
        expect(plan, `${path}: ${sql}`).not.toMatch(/\bSCAN (request_log|night_sources)\b/);
    }
  });

  it("a source page and /new read no night, record or log table whole (the checker-offline nights by their own index)", async () => {
    for (const path of ["/sources/test-agendas", "/new", "/new.atom", "/api/new"]) {
      const plans = await plansOf(path);
      for (const { sql, plan } of plans)
        expect(plan, `${path}: ${sql}`).not.toMatch(/\bSCAN (request_log|night_sources|records)\b/);
      const offline = plans.filter((p) => /"outcome" = 'checker-offline'/.test(p.sql));
      if (path !== "/new.atom") {
        expect(offline, path).toHaveLength(1);
        expect(offline[0]?.plan, path).toMatch(/USING COVERING INDEX night_sources_offline \(/);
      }
    }
  });

  it("P27: the JSON download reads its pages from the index where the last one stopped, each row once, in order", async () => {
    const form = { since: "2026-11-05 01:00", until: "2026-11-05 02:00" };
    const path = `/console/log.json?${new URLSearchParams(form)}`;
    const pages = (await plansOf(path)).filter((p) => /\bfrom "request_log"/.test(p.sql));
    // 2,000 attempts in the hour: two full pages of 1,000, then an empty one.
    expect(pages).toHaveLength(3);
    expect(pages.filter((p) => /\("started_at", "id"\) > \(\?, \?\)/.test(p.sql))).toHaveLength(2);
    for (const p of pages) {
      expect(p.plan).toMatch(/SEARCH request_log USING INDEX request_log_started_at \(/);
      expect(p.plan).not.toMatch(/TEMP B-TREE/);
    }
    const body = (await (await b.get(path)).json()) as {
      count: number;
      truncated: boolean;
      attempts: { startedAt: string; url: string }[];
    };
    expect(body.count).toBe(2_000);
    expect(body.truncated).toBe(false);
    const urls = body.attempts.map((a) => a.url);
    expect(new Set(urls).size).toBe(2_000);
    expect(urls[0]).toBe("https://site-0.gov/0");
    expect(urls[1_999]).toBe("https://site-4.gov/1999");
    const times = body.attempts.map((a) => a.startedAt);
    expect([...times].sort()).toEqual(times);
  });

  it("P27: the request-log search by window and site, source or URL starts from an index on the window", async () => {
    const window = { since: "2026-11-05 01:10", until: "2026-11-05 01:20" };
    const searches = [
      { ...window, site: "site-3.gov", index: "request_log_site_started_at" },
      { ...window, source: "oh-a-agendas", index: "request_log_source_started_at" },
      { ...window, url: "/12", index: "request_log_started_at" },
      { ...window, index: "request_log_started_at" },
    ];
    for (const { index, ...form } of searches) {
      const path = `/console/log?${new URLSearchParams(form)}`;
      const log = (await plansOf(path)).filter((p) => /\bfrom "request_log"/.test(p.sql));
      expect(log, path).toHaveLength(1);
      const plan = log[0]?.plan ?? "";
      // A range of the index on the window (and the address), in the order the page shows.
      expect(plan, path).toMatch(new RegExp(`SEARCH request_log USING INDEX ${index} \\(`));
      expect(plan, path).not.toMatch(FULL_SCAN);
      expect(plan, path).not.toMatch(/TEMP B-TREE/);
    }
  });
});
