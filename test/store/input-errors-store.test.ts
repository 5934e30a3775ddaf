import { chmodSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { nor, runMain } from "../cli/cli-capture.js";
import { postgresFactory, postgresUrl, rawStore } from "./stores.js";

/**
 * A store nor cannot use as it stands (migrated by a newer nor, damaged, read-only) is said
 * with its path, and nothing is written to it on the way. A newer or a read-only store exits 2
 * (a person has to act; a restart by systemd would only meet it again); a damaged one exits 1,
 * as any store that cannot be opened (test/store/review-open.test.ts).
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-input-errors-store-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) {
    chmodSync(d, 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

/** A store made by `nor catalog import`, and the catalog it was made from. */
async function storeWithCatalog(): Promise<{ data: string; file: string; catalog: string }> {
  const d = tmp();
  const data = join(d, "data");
  const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Test", {
    "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
  });
  const r = await nor("catalog", "import", catalog, "--data", data);
  expect(r.code, r.stderr).toBe(0);
  return { data, file: join(data, "nor.db"), catalog };
}

describe("a store a newer nor migrated", () => {
  it("is refused by name (exit 2), on reading and on writing commands, and left as it was", async () => {
    const { data, file, catalog } = await storeWithCatalog();
    const raw = new Sqlite(file);
    raw
      .prepare("insert into kysely_migration (name, timestamp) values (?, ?)")
      .run("099-from-the-future", "2030-01-01T00:00:00.000Z");
    raw.close();
    const before = readFileSync(file);
    const said = `${file} was migrated by a newer version of nor (migration 099-from-the-future unknown here): upgrade nor, or restore a backup`;
    for (const args of [
      ["status", "--data", data],
      ["catalog", "import", catalog, "--data", data],
    ]) {
      const r = await nor(...args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`nor: ${said}\n`);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it.runIf(postgresUrl)("on PostgreSQL too, naming the store without its password", async () => {
    const pg = postgresFactory(postgresUrl ?? "");
    try {
      const loc = await pg.fresh();
      if (loc.kind !== "postgres") throw new Error("not a PostgreSQL store");
      await (await openStore(loc)).close();
      const raw = rawStore(loc);
      try {
        await sql`insert into kysely_migration (name, timestamp)
          values ('099-from-the-future', '2030-01-01T00:00:00.000Z')`.execute(raw);
      } finally {
        await raw.destroy();
      }
      const r = await runMain(["status"], { env: { NOR_DATABASE_URL: loc.url } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        "was migrated by a newer version of nor (migration 099-from-the-future unknown here): upgrade nor, or restore a backup",
      );
      expect(r.stderr).toMatch(/^nor: the store at postgres:\/\//);
      const after = rawStore(loc);
      try {
        const rows = await sql<{ n: number }>`select count(*)::int as n from kysely_migration
          where name = '099-from-the-future'`.execute(after);
        expect(rows.rows[0]?.n).toBe(1);
      } finally {
        await after.destroy();
      }
    } finally {
      await pg.cleanup();
    }
  });
});

describe("a damaged SQLite store", () => {
  it("SQLITE_CORRUPT met while opening is said with the path (exit 1), and nothing is written", async () => {
    const { data, file, catalog } = await storeWithCatalog();
    // Every page of the table of migrations and of its index, made no b-tree page at all:
    // what a disk that lost those pages leaves.
    const raw = new Sqlite(file);
    const pages = raw
      .prepare(
        "select pageno from dbstat where name in ('kysely_migration', 'sqlite_autoindex_kysely_migration_1')",
      )
      .pluck()
      .all() as number[];
    const size = raw.pragma("page_size", { simple: true }) as number;
    raw.close();
    expect(pages.length).toBeGreaterThan(0);
    const bytes = readFileSync(file);
    for (const p of pages) bytes[(p - 1) * size] = 0;
    writeFileSync(file, bytes);

    for (const args of [
      ["status", "--data", data],
      ["catalog", "import", catalog, "--data", data],
    ]) {
      const r = await nor(...args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `nor: ${file} is damaged (SQLite: database disk image is malformed): restore it from a backup; \`sqlite3 ${file} 'PRAGMA quick_check'\` lists what is damaged\n`,
      );
    }
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it("a truncated store is said the same way (exit 1)", async () => {
    const { data, file } = await storeWithCatalog();
    truncateSync(file, 1000);
    const r = await nor("status", "--data", data);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`nor: ${file} is damaged (SQLite: `);
  });
});

// Root writes to any file whatever its mode: a read-only store for root needs a read-only
// mount, which a test does not make. Run as any other user, this is the real thing.
describe.skipIf(process.getuid?.() === 0)("a read-only SQLite store", () => {
  it("a command that writes refuses it by path (exit 2); one that reads still reads it", async () => {
    const { data, file, catalog } = await storeWithCatalog();
    chmodSync(file, 0o444);
    try {
      const before = readFileSync(file);
      const r = await nor("catalog", "import", catalog, "--data", data);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`nor: ${file} is read-only (not writable by this user: EACCES)`);
      expect(readFileSync(file).equals(before)).toBe(true);
      const status = await nor("status", "--data", data);
      expect(status.code, status.stderr).toBe(0);
    } finally {
      chmodSync(file, 0o644);
    }
  });
});
