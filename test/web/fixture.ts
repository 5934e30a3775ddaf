/**
 * A directory store for the web tests: a catalog imported the way `nor catalog import` does,
 * and three nights committed through the night's own store (SqlNightStore), so the pages read
 * exactly the rows a real night writes.
 */
import { constants, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SourceResult } from "../../src/night/types.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { markSource } from "../../src/store/admin.js";
import { type Db, openStore, type Store, type StoreLocation } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { migratedSqliteIn, sqliteTemplateFile, tempDirOfProcess } from "../store/stores.js";

export const NOW = Date.parse("2026-11-05T15:00:00.000Z");
/** The configured public origin (`--origin`): feeds build their links from it, never from Host. */
export const ORIGIN = "https://directory.example";
export const NIGHTS = ["2026-11-03", "2026-11-04", "2026-11-05"] as const;
/** The directory's first night (nothing was checked: it ran with an empty catalog). */
export const FIRST_NIGHT = "2026-10-25";
export const EVIL = `<script>alert("x")</script> Township`;
export const REFUSAL = {
  reason: "Cloudflare challenge page (403)",
  provider: "cloudflare",
  reference: "8e1f2c3d4b5a6978-CMH",
};
/** A record title and link from a crawled list that must stay inert text everywhere. */
export const SCRIPT_TITLE = "<script>alert(1)</script>";
export const SCRIPT_URL = "javascript:alert(document.domain)";
/** A lead's reason that must stay inert text (never markup). */
export const LEAD_SCRIPT_WHY = "<script>alert(3)</script> seen once";
export const NOT_READ_REASON =
  "The site asks for a sign-in to see the list; asked the clerk by email";

const CATALOG = `
governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin, website: "https://test.example/" }
  - { id: franklin-county, name: Franklin County, kind: county, county: Franklin }
  - { id: city-of-akron, name: City of Akron, kind: city, county: Summit }
  - { id: evil-township, name: '${EVIL}', kind: township, county: Summit }
  - { id: ohio-epa, name: Ohio EPA, kind: state-agency }
sources:
  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, url: "https://test.example/agendas.rss", name: Council agendas }
  - id: test-bids
    government: village-of-test
    records: bids
    access: page
    url: https://test.example/bids
    extract: { items: li.bid, title: a, link: a, date: span }
  - id: akron-minutes
    government: city-of-akron
    records: minutes
    access: page
    url: https://akron.example/minutes
    extract: { items: li, title: a, link: a }
  - { id: evil-notices, government: evil-township, records: notices, access: feed, url: "https://evil.example/feed" }
  - { id: old-permits, government: franklin-county, records: permits, access: feed, url: "https://franklin.example/permits.rss" }
leads:
  - government: village-of-test
    records: minutes
    url: https://test.example/minutes-archive
    platform: other
    why: needs a page recipe
    evidence: "City-Bureau/city-scrapers-coloh/city_scrapers/spiders/colum_city_council.py@8e2c109cf14fa6424eaebcc1460b7190e9a38e5f ; https://stored.example/village-meetings"
  - { government: village-of-test, records: agendas, url: "test.example/agendas/{year}", why: "the address is a template" }
  - { government: evil-township, records: notices, url: 'https://evil.example/"><b>x</b>', why: '${LEAD_SCRIPT_WHY}', evidence: "https://evil.example/seen" }
`;

let parsed: Catalog | undefined;

/**
 * The fixture's catalog as parseCatalog reads CATALOG: read once a process (10–20 ms of CPU a
 * read), each caller given a copy of its own to change.
 */
export function catalog(): Catalog {
  parsed ??= catalogRead();
  return structuredClone(parsed);
}

/** CATALOG read by parseCatalog now (fixture-copy.test.ts). */
export function catalogRead(): Catalog {
  return parseCatalog(CATALOG, "test/web/catalog.yaml");
}

const origins = (c: Catalog) => ({
  governments: new Map(c.governments.map((g) => [g.id, "catalog.yaml"])),
  sources: new Map(c.sources.map((s) => [s.id, "catalog.yaml"])),
});

function rec(n: number, origin: string, date: string, kind?: string) {
  return {
    id: `${origin}/r/${n}`,
    title: `Record ${n}`,
    date,
    url: `${origin}/r/${n}`,
    ...(kind ? { kind } : {}),
  };
}

export interface Fixture {
  store: Store;
  dir: string;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** Adds a record titled SCRIPT_TITLE linking to SCRIPT_URL to evil-notices' last night. */
  scriptRecord?: boolean;
  /**
   * Keeps the records the pages listed when first read (11-03) as the night marked them: already
   * listed, never new on record (migration 021). Without it they are put down as new, as if the
   * pages had been read on a night before these, so /new has every night's records to show.
   */
  firstReadsListed?: boolean;
}

/**
 * Nights 11-03..11-05; test-bids is refused on the last; akron-minutes is marked not read.
 *
 * A SQLite fixture (no place given, or a directory with no store or only an empty one, as
 * StoreFactory's fresh() and migrated() give) is a copy of the one this process built first
 * with the same options: building it (two imports, four nights, a mark) cost some 70–90 ms of
 * CPU each time, and what it holds depends on nothing but the code below and its options
 * (test/web/fixture-copy.test.ts compares a copy with one built afresh, row by row).
 * PostgreSQL's is built in its schema each time.
 */
export async function buildFixture(
  loc?: StoreLocation,
  opts: FixtureOptions = {},
): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), "nor-web-"));
  const at = loc ?? { kind: "sqlite", dir };
  const copied = at.kind === "sqlite" && (await holdsNoRows(at.dir));
  if (copied) {
    rmSync(join(at.dir, "nor.db"), { force: true });
    copyFileSync(await fixtureTemplate(opts), join(at.dir, "nor.db"), constants.COPYFILE_EXCL);
  }
  const store = await openStore(at);
  if (!copied) await fill(store.db, opts);
  return opened(store, dir);
}

/** The fixture built in its store step by step, never copied (fixture-copy.test.ts). */
export async function buildFixtureAfresh(opts: FixtureOptions = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), "nor-web-"));
  await migratedSqliteIn(dir);
  const store = await openStore({ kind: "sqlite", dir });
  await fill(store.db, opts);
  return opened(store, dir);
}

function opened(store: Store, dir: string): Fixture {
  const app = createApp({ db: store.db, now: () => NOW, origin: ORIGIN });
  return {
    store,
    dir,
    app,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** No store in `dir` yet, or only a copy of the empty one openStore makes (migratedSqliteIn). */
async function holdsNoRows(dir: string): Promise<boolean> {
  const file = join(dir, "nor.db");
  if (!existsSync(file)) return true;
  for (const part of ["-wal", "-shm", "-journal"]) if (existsSync(`${file}${part}`)) return false;
  return readFileSync(file).equals(readFileSync(await sqliteTemplateFile()));
}

/** Per set of options: nor.db of the fixture built once in this process, closed (whole). */
const templates = new Map<string, Promise<string>>();

function fixtureTemplate(opts: FixtureOptions): Promise<string> {
  const key = `${opts.scriptRecord === true} ${opts.firstReadsListed === true}`;
  let file = templates.get(key);
  if (file === undefined) {
    file = (async () => {
      const dir = tempDirOfProcess("nor-web-fixture-");
      await migratedSqliteIn(dir);
      const store = await openStore({ kind: "sqlite", dir });
      try {
        await fill(store.db, opts);
      } finally {
        await store.close();
      }
      const made = join(dir, "nor.db");
      for (const part of ["-wal", "-shm", "-journal"])
        if (existsSync(`${made}${part}`)) throw new Error(`${made}${part} left after close`);
      return made;
    })();
    templates.set(key, file);
  }
  return file;
}

/** What the fixture holds, written in `db` (a store with nothing in it yet). */
async function fill(db: Db, opts: FixtureOptions): Promise<void> {
  const full = catalog();
  await importCatalog(db, full, origins(full), NOW - 5 * 86_400_000);
  // old-permits leaves the catalog: retired, shown only on its own page.
  const later = { ...full, sources: full.sources.filter((s) => s.id !== "old-permits") };
  await importCatalog(db, later, origins(later), NOW - 4 * 86_400_000, { allowRetire: true });

  const night = new SqlNightStore(db);
  const rows = full.sources.map((s) => ({
    id: s.id,
    government: s.government,
    url: s.url,
    site: new URL(s.url).origin,
  }));
  const base = (id: string, at: number): Omit<SourceResult, "outcome"> => ({
    sourceId: id,
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  // The directory's first night, long before the others: nights before it "came before the
  // directory began checking", nights after it without a night "never ran" (an outage).
  {
    const startedAt = Date.parse(`${FIRST_NIGHT}T06:00:00.000Z`);
    await night.openNight(FIRST_NIGHT, startedAt, startedAt + 6 * 3_600_000);
    await night.finishNight(FIRST_NIGHT, startedAt + 3_600_000);
  }
  for (const [i, n] of NIGHTS.entries()) {
    const at = Date.parse(`${n}T06:00:00.000Z`) + 22 * 3_600_000; // the night of 11-03: 23:00 ET
    const startedAt = at - 3_600_000;
    await night.openNight(n, startedAt, startedAt + 6 * 3_600_000);
    await night.syncSources(rows, startedAt);
    await night.commit(n, {
      ...base("test-agendas", at),
      outcome: { kind: i === 1 ? "unchanged" : "ok", url: "https://test.example/agendas.rss" },
      way: { used: { access: "feed", url: "https://test.example/agendas.rss" }, skipped: [] },
      records:
        i === 1
          ? []
          : [
              rec(10 + i, "https://test.example", `2026-11-0${i + 2}`, "agendas"),
              rec(20 + i, "https://test.example", `2026-11-0${i + 2}T23:30:00.000Z`),
            ],
    });
    const refused = i === 2;
    await night.commit(n, {
      ...base("test-bids", at + 2000),
      outcome: refused
        ? {
            kind: "refused",
            reason: REFUSAL.reason,
            status: 403,
            url: "https://test.example/bids",
            evidence: {
              provider: REFUSAL.provider,
              verdict: "challenge",
              reference: REFUSAL.reference,
            },
          }
        : { kind: "ok", url: "https://test.example/bids" },
      way: refused
        ? { skipped: [] }
        : { used: { access: "page", url: "https://test.example/bids" }, skipped: [] },
      records: refused ? [] : [rec(30 + i, "https://test.example", `2026-11-0${i + 2}`, "bids")],
    });
    if (i === 0) {
      await night.commit(n, {
        ...base("akron-minutes", at + 3000),
        outcome: { kind: "ok", url: "https://akron.example/minutes" },
        records: [rec(40, "https://akron.example", "2026-11-01")],
      });
    }
    await night.commit(n, {
      ...base("evil-notices", at + 4000),
      outcome: { kind: "ok", url: "https://evil.example/feed" },
      records:
        i === 2
          ? [
              {
                id: "e1",
                title: `<img src=x onerror=alert(1)>`,
                url: "javascript:alert(1)",
                date: "2026-11-05",
              },
              ...(opts.scriptRecord
                ? [{ id: "e2", title: SCRIPT_TITLE, url: SCRIPT_URL, date: "2026-11-05" }]
                : []),
            ]
          : [],
    });
    await night.finishNight(n, at + 60_000);
  }
  if (!opts.firstReadsListed) await db.updateTable("records").set({ already_listed: 0 }).execute();
  await markSource(db, {
    source: "akron-minutes",
    reading: false,
    reason: NOT_READ_REASON,
    by: "operator",
    at: Date.parse("2026-11-04T14:00:00.000Z"),
    night: "2026-11-04",
  });
}

/** A record page's new record, committed on the fixture's last night (new on record). */
export async function commitNewRecord(f: Fixture, n: number): Promise<void> {
  const night = new SqlNightStore(f.store.db);
  const at = Date.parse(`${NIGHTS[2]}T06:00:00.000Z`) + 23 * 3_600_000 + n;
  const c = await night.commit(NIGHTS[2], {
    sourceId: "akron-minutes",
    outcome: { kind: "ok", url: "https://akron.example/minutes" },
    records: [
      {
        id: "https://akron.example/r/40",
        title: "Record 40",
        date: "2026-11-01",
        url: "https://akron.example/r/40",
      },
      {
        id: `https://akron.example/r/${n}`,
        title: `Record ${n}`,
        date: "2026-11-05",
        url: `https://akron.example/r/${n}`,
      },
    ],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  if (c.newRecords !== 1) throw new Error(`commitNewRecord: ${c.newRecords} new records, not 1`);
}
