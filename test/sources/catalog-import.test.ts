import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { syntheticCatalog } from "../../scripts/generate-catalog.js";
import { loadCatalogWithFiles, parseCatalog } from "../../src/sources/catalog/load.js";
import { stampCatalogFiles } from "../../src/sources/catalog/stamp.js";
import {
  formatDiff,
  type ImportDiff,
  type ImportOutcome,
  importCatalog,
  importCatalogFiles,
  sourcesDiffer,
} from "../../src/sources/catalog-import.js";
import {
  catalogStampOf,
  sourceEntries,
  sourceEntriesInUse,
  sourcesInUse,
} from "../../src/store/catalog-sources.js";
import { openStore } from "../../src/store/db.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "../store/stores.js";

const factories: StoreFactory[] = [sqliteFactory()];
if (postgresUrl) factories.push(postgresFactory(postgresUrl));

const cat = (sources: string) =>
  parseCatalog(
    `governments:\n  - { id: g, name: G, kind: city }\n  - { id: h, name: H, kind: village }\nsources:\n${sources}`,
    "t.yaml",
  );
const s = (id: string, url: string) =>
  `  - { id: ${id}, government: g, records: bids, access: feed, url: "${url}" }\n`;
const origins = (c: ReturnType<typeof cat>) => ({
  governments: new Map(c.governments.map((g) => [g.id, "t.yaml"])),
  sources: new Map(c.sources.map((x) => [x.id, "t.yaml"])),
});

/** The diff of an import expected to be written. */
function diffOf(o: ImportOutcome): ImportDiff {
  if (o.kind !== "imported") throw new Error(`expected an import, got ${JSON.stringify(o)}`);
  return o.diff;
}

const T1 = Date.UTC(2026, 10, 5, 8, 0, 0);
const T2 = T1 + 86_400_000;
const T3 = T2 + 86_400_000;

describe.each(factories)("importCatalog on $name", (factory) => {
  afterAll(() => factory.cleanup());

  it("keeps a retired source with its time, un-retires it, and logs every change", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const c1 = cat(s("a", "https://x.gov/a") + s("b", "https://x.gov/b"));
      const d1 = diffOf(await importCatalog(store.db, c1, origins(c1), T1));
      expect(d1.changes.map((c) => `${c.entity}:${c.id}:${c.change}`)).toEqual([
        "government:g:added",
        "government:h:added",
        "source:a:added",
        "source:b:added",
      ]);

      // Reordered keys are not a change; a new url is; a missing source and government retire.
      const c2 = parseCatalog(
        `governments:\n  - { kind: city, name: G, id: g }\nsources:\n  - { url: "https://x.gov/a2", access: feed, records: bids, government: g, id: a }\n`,
        "t.yaml",
      );
      const d2 = diffOf(await importCatalog(store.db, c2, origins(c2), T2, { allowRetire: true }));
      expect(d2.changes).toEqual([
        { entity: "government", id: "h", change: "retired" },
        { entity: "source", id: "a", change: "changed", fields: ["url"] },
        { entity: "source", id: "b", change: "retired" },
      ]);
      expect(formatDiff(d2)).toContain("sources: 0 added, 1 changed, 1 retired, 0 un-retired\n");
      const b = await store.db
        .selectFrom("sources")
        .selectAll()
        .where("id", "=", "b")
        .executeTakeFirstOrThrow();
      expect(b.retired_at).toBe(new Date(T2).toISOString());
      expect(b.first_seen_at).toBe(new Date(T1).toISOString());

      const d3 = diffOf(await importCatalog(store.db, c1, origins(c1), T3));
      expect(d3.changes).toEqual([
        { entity: "government", id: "h", change: "unretired" },
        { entity: "source", id: "a", change: "changed", fields: ["url"] },
        { entity: "source", id: "b", change: "unretired" },
      ]);
      const rows = await store.db
        .selectFrom("sources")
        .select(["id", "retired_at", "url"])
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: "a", retired_at: null, url: "https://x.gov/a" },
        { id: "b", retired_at: null, url: "https://x.gov/b" },
      ]);
      const log = await store.db
        .selectFrom("catalog_changes")
        .select(["entity_id", "change", "at"])
        .where("entity_id", "=", "b")
        .orderBy("id")
        .execute();
      expect(log).toEqual([
        { entity_id: "b", change: "added", at: new Date(T1).toISOString() },
        { entity_id: "b", change: "retired", at: new Date(T2).toISOString() },
        { entity_id: "b", change: "unretired", at: new Date(T3).toISOString() },
      ]);
    } finally {
      await store.close();
    }
  });

  it("an import that would retire more than a tenth of the sources is an outcome that names them and writes nothing", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const all = cat(
        s("a", "https://x.gov/a") + s("b", "https://x.gov/b") + s("c", "https://x.gov/c"),
      );
      diffOf(await importCatalog(store.db, all, origins(all), T1));
      const one = cat(s("a", "https://x.gov/a2"));
      const refused = await importCatalog(store.db, one, origins(one), T2);
      expect(refused).toEqual({ kind: "too-many-retired", active: 3, retire: ["b", "c"] });
      // Nothing written: the changed url of "a" waits with the rest.
      const rows = await store.db
        .selectFrom("sources")
        .select(["id", "retired_at", "url"])
        .orderBy("id")
        .execute();
      expect(rows.map((r) => [r.id, r.retired_at, r.url])).toEqual([
        ["a", null, "https://x.gov/a"],
        ["b", null, "https://x.gov/b"],
        ["c", null, "https://x.gov/c"],
      ]);
      const changes = await store.db.selectFrom("catalog_changes").select("at").execute();
      expect(changes.every((c) => c.at === new Date(T1).toISOString())).toBe(true);
      // Meant: said so.
      const allowed = diffOf(
        await importCatalog(store.db, one, origins(one), T2, { allowRetire: true }),
      );
      expect(allowed.changes.filter((c) => c.change === "retired").map((c) => c.id)).toEqual([
        "b",
        "c",
      ]);
    } finally {
      await store.close();
    }
  });

  it("imports a catalog of many pieces a batch at a time, the same as from memory; the retire guard stops it before any write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-import-big-"));
    const file = join(dir, "big.yaml");
    writeFileSync(file, syntheticCatalog(600));
    const loc = await factory.migrated();
    const open = () => openStore(loc);
    const d1 = diffOf(await importCatalogFiles([file], open, () => T1));
    expect(formatDiff(d1)).toContain("governments: 60 added, 0 changed, 0 retired, 0 un-retired\n");
    expect(formatDiff(d1)).toContain("sources: 600 added, 0 changed, 0 retired, 0 un-retired\n");
    // The same catalog held in memory (as the night holds it) gives the same diff.
    const mem = await openStore(await factory.migrated());
    try {
      const { catalog, origins } = loadCatalogWithFiles([file]);
      expect(diffOf(await importCatalog(mem.db, catalog, origins, T1))).toEqual(d1);
    } finally {
      await mem.close();
    }

    const store = await open();
    const counts = async () => {
      const n = (await store.db
        .selectFrom("sources")
        .select((e) => [
          e.fn.countAll<number>().as("all"),
          e.fn.count<number>("retired_at").as("retired"),
        ])
        .executeTakeFirstOrThrow()) as { all: number | string; retired: number | string };
      const log = (await store.db
        .selectFrom("catalog_changes")
        .select((e) => e.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()) as { n: number | string };
      return [Number(n.all), Number(n.retired), Number(log.n)];
    };
    try {
      expect(await counts()).toEqual([600, 0, 600 + 60]);
      const again = diffOf(await importCatalogFiles([file], open, () => T2));
      expect(again).toEqual({
        changes: [],
        unchanged: 600 + 60,
        leads: { added: 0, removed: 0, listed: 0 },
      });

      // Drop the last 100 sources (more than a tenth) and change one url.
      const text = syntheticCatalog(600);
      const cut = text.indexOf("  - id: src-500\n");
      writeFileSync(file, text.slice(0, cut).replace("/records/7\n", "/records/seven\n"));
      const refused = await importCatalogFiles([file], open, () => T2);
      expect(refused).toEqual({
        kind: "too-many-retired",
        active: 600,
        retire: Array.from({ length: 100 }, (_, i) => `src-${500 + i}`),
      });
      expect(await counts()).toEqual([600, 0, 600 + 60]); // nothing written
      const d3 = diffOf(await importCatalogFiles([file], open, () => T3, { allowRetire: true }));
      expect(formatDiff(d3)).toContain("sources: 0 added, 1 changed, 100 retired, 0 un-retired\n");
      expect(d3.changes[0]).toEqual({
        entity: "source",
        id: "src-7",
        change: "changed",
        fields: ["url"],
      });
      expect(await counts()).toEqual([600, 100, 600 + 60 + 101]);
    } finally {
      await store.close();
    }
  });
  it("every import records the stamp of the files it read, or none; the sources in use are read only under that stamp", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-import-stamp-"));
    const file = join(dir, "c.yaml");
    const yaml = (url: string) =>
      `governments:\n  - { id: g, name: G, kind: city }\nsources:\n${s("b", url)}${s("a", "https://x.gov/a")}`;
    writeFileSync(file, yaml("https://x.gov/b"));
    const loc = await factory.migrated();
    const store = await openStore(loc);
    const reopen = async () => ({ db: store.db, close: async () => {} });
    try {
      expect(await catalogStampOf(store.db)).toBeUndefined();
      const stamp = stampCatalogFiles([file]);
      expect(stamp?.unchanged()).toBe(true);
      diffOf(await importCatalogFiles([file], reopen, () => T1));
      expect(await catalogStampOf(store.db)).toBe(stamp?.digest);
      const inUse = [
        { id: "a", government: "g", url: "https://x.gov/a" },
        { id: "b", government: "g", url: "https://x.gov/b" },
      ];
      expect(await sourcesInUse(store.db, { stamp: stamp?.digest as string })).toEqual(inUse);
      expect(await sourcesInUse(store.db, { stamp: "another" })).toBeUndefined();
      // Each entry as validated, the way the night reads it.
      const [entry] = await sourceEntries(store.db, ["b"]);
      expect(JSON.parse(entry?.entry ?? "")).toMatchObject({
        id: "b",
        access: "feed",
        alternates: [],
        backfill: { pagesPerNight: 3 },
      });

      // The same catalog held in memory: nothing changes, but no file is vouched for.
      const { catalog, origins: from } = loadCatalogWithFiles([file]);
      expect(diffOf(await importCatalog(store.db, catalog, from, T2)).changes).toEqual([]);
      expect(await catalogStampOf(store.db)).toBeUndefined();
      expect(await sourcesInUse(store.db, { stamp: stamp?.digest as string })).toBeUndefined();
      expect(await sourcesInUse(store.db)).toEqual(inUse);

      // A file written to while it is read is not vouched for either.
      const racing = stampCatalogFiles([file]);
      writeFileSync(file, yaml("https://x.gov/b2"));
      expect(racing?.unchanged()).toBe(false);
      diffOf(await importCatalog(store.db, catalog, from, T3, { stamp: racing }));
      expect(await catalogStampOf(store.db)).toBeUndefined();

      // A refused import writes nothing, the stamp included.
      writeFileSync(file, yaml("https://x.gov/b"));
      diffOf(await importCatalogFiles([file], reopen, () => T3));
      const kept = await catalogStampOf(store.db);
      expect(kept).toBe(stampCatalogFiles([file])?.digest);
      writeFileSync(
        file,
        `governments:\n  - { id: g, name: G, kind: city }\nsources:\n${s("c", "https://x.gov/c")}`,
      );
      expect((await importCatalogFiles([file], reopen, () => T3 + 1)).kind).toBe(
        "too-many-retired",
      );
      expect(await catalogStampOf(store.db)).toBe(kept);
    } finally {
      await store.close();
    }
  });

  it("imports what it validated, read once: a file rewritten after its check (a duplicate id, an unknown government, half of it) changes nothing imported, and no stamp is kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-import-once-"));
    const file = join(dir, "c.yaml");
    const head = "governments:\n  - { id: g, name: G, kind: city }\nsources:\n";
    writeFileSync(file, head + s("a", "https://x.gov/a") + s("b", "https://x.gov/b"));
    const loc = await factory.migrated();
    // The store is opened once the files are known good: the file is rewritten in between,
    // as a catalog regenerated during a long import would be.
    const open = async () => {
      writeFileSync(
        file,
        `${head}${s("a", "https://x.gov/changed")}${s("a", "https://x.gov/twice")}  - { id: z, government: nobody, records: bids, access: feed, url: "https://x.gov/z" }\n`,
      );
      return openStore(loc);
    };
    const d = diffOf(await importCatalogFiles([file], open, () => T1));
    expect(formatDiff(d)).toContain("sources: 2 added, 0 changed, 0 retired, 0 un-retired\n");
    const store = await openStore(loc);
    try {
      const rows = await store.db
        .selectFrom("sources")
        .select(["id", "government_id", "url"])
        .orderBy("id")
        .execute();
      expect(rows.map((r) => `${r.id} ${r.government_id} ${r.url}`)).toEqual([
        "a g https://x.gov/a",
        "b g https://x.gov/b",
      ]);
      // The bytes read are not the file's now: the next night reads it again.
      expect(await catalogStampOf(store.db)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("lists the catalog's leads anew on each import, in catalog order, keeping when each was first listed", async () => {
    const store = await openStore(await factory.migrated());
    const withLeads = (leads: string) =>
      parseCatalog(
        `governments:\n  - { id: g, name: G, kind: city }\nsources:\n${s("a", "https://x.gov/a")}leads:\n${leads}`,
        "t.yaml",
      );
    const lead = (url: string, why = "needs a page recipe") =>
      `  - { government: g, records: minutes, url: "${url}", why: ${why}, evidence: "o/r/p.csv@abc1234" }\n`;
    const listed = async () =>
      (
        await store.db
          .selectFrom("leads")
          .select(["url", "why", "first_seen_at"])
          .orderBy("position")
          .execute()
      ).map((r) => [r.url, r.why, r.first_seen_at]);
    try {
      const c1 = withLeads(lead("https://x.gov/m") + lead("x.gov/no-scheme"));
      const d1 = diffOf(await importCatalog(store.db, c1, origins(c1), T1));
      expect(d1.leads).toEqual({ added: 2, removed: 0, listed: 2 });
      expect(formatDiff(d1)).toContain("leads: 2 listed (2 added, 0 no longer listed)\n");
      const t1 = new Date(T1).toISOString();
      expect(await listed()).toEqual([
        ["https://x.gov/m", "needs a page recipe", t1],
        ["x.gov/no-scheme", "needs a page recipe", t1],
      ]);

      // One stays (its why changed: the same lead), one goes, one comes, ahead of it.
      const c2 = withLeads(lead("https://x.gov/new") + lead("https://x.gov/m", "a template"));
      const d2 = diffOf(await importCatalog(store.db, c2, origins(c2), T2));
      expect(d2.leads).toEqual({ added: 1, removed: 1, listed: 2 });
      expect(await listed()).toEqual([
        ["https://x.gov/new", "needs a page recipe", new Date(T2).toISOString()],
        ["https://x.gov/m", "a template", t1],
      ]);

      // A catalog without leads lists none.
      const c3 = cat(s("a", "https://x.gov/a"));
      const d3 = diffOf(await importCatalog(store.db, c3, origins(c3), T3, { allowRetire: true }));
      expect(d3.leads).toEqual({ added: 0, removed: 2, listed: 0 });
      expect(await listed()).toEqual([]);

      // `nor catalog import` reads the files a piece at a time: leads too.
      const file = join(mkdtempSync(join(tmpdir(), "nor-leads-")), "c.yaml");
      writeFileSync(
        file,
        `governments:\n  - { id: g, name: G, kind: city }\nsources:\n${s("a", "https://x.gov/a")}leads:\n${lead("https://x.gov/m")}`,
      );
      const reopen = async () => ({ db: store.db, close: async () => {} });
      const d4 = diffOf(await importCatalogFiles([file], reopen, () => T3 + 1));
      expect(d4.leads).toEqual({ added: 1, removed: 0, listed: 1 });
      expect((await listed()).map(([url]) => url)).toEqual(["https://x.gov/m"]);
    } finally {
      await store.close();
    }
  });
});

describe.each(factories)("the sources a joining night compares (sourcesDiffer) on $name", (f) => {
  afterAll(() => f.cleanup());
  it(`P11: the same sources in another order are no difference; a changed way in, a new or missing source each are, said by id`, async () => {
    const store = await openStore(await f.migrated());
    try {
      const before = cat(s("a", "https://a.gov/f.rss") + s("b", "https://b.gov/f.rss"));
      diffOf(await importCatalog(store.db, before, origins(before), T1));
      const inUse = await sourceEntriesInUse(store.db);
      expect(inUse.map((r) => r.id)).toEqual(["a", "b"]);
      const reordered = cat(s("b", "https://b.gov/f.rss") + s("a", "https://a.gov/f.rss"));
      expect(sourcesDiffer(inUse, reordered.sources)).toEqual([]);
      const other = cat(
        s("a", "https://a.gov/f.rss") +
          `  - { id: b, government: h, records: bids, access: feed, url: "https://b.gov/f.rss" }\n` +
          s("c", "https://c.gov/f.rss"),
      );
      expect(sourcesDiffer(inUse, other.sources)).toEqual([
        "b has another government",
        "c is not among the sources in use",
      ]);
      expect(sourcesDiffer(inUse, cat(s("x", "https://x.gov/f.rss")).sources, 2)).toEqual([
        "x is not among the sources in use",
        "a is in use but not listed",
        "1 more",
      ]);
    } finally {
      await store.close();
    }
  });
});
