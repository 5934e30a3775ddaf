import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import { openStore } from "../../src/store/db.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { writeTxn } from "../../src/store/write-txn.js";
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
const immutable: string[] = [];
afterAll(() => {
  for (const f of immutable.splice(0)) execFileSync("chattr", ["-i", f]);
  for (const d of dirs) {
    chmodSync(d, 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

/** What nor says of a damaged store file, with where to read how to put a backup back. */
function damaged(file: string): string {
  return `${file} is damaged (SQLite: database disk image is malformed): restore it from a backup (docs/operations.md, "Backups"); \`sqlite3 ${file} 'PRAGMA quick_check'\` lists what is damaged`;
}

/** What nor says of a store file it may not write, found so by SQLite when a write is tried. */
function readOnly(file: string): string {
  return `${file} is read-only (SQLite: attempt to write a readonly database): nor writes to its store; make the file and its directory writable for this user, or choose another --data`;
}

/**
 * Garbage (a fixed pseudo-random stream) over every page of these tables and their indexes:
 * what a disk that lost those pages leaves. The header, the schema and the table of migrations
 * stay whole, so the store opens, and the damage is met only by a statement that reads a page
 * of them. Gives the file's bytes as left.
 */
function damagePages(file: string, tables: readonly string[]): Buffer {
  const raw = new Sqlite(file);
  const pages = raw
    .prepare(
      `select distinct pageno from dbstat where name in (select name from sqlite_schema
        where tbl_name in (${tables.map(() => "?").join(", ")}))`,
    )
    .pluck()
    .all(...tables) as number[];
  const schema = raw
    .prepare("select pageno from dbstat where name in ('sqlite_schema', 'kysely_migration')")
    .pluck()
    .all() as number[];
  const size = raw.pragma("page_size", { simple: true }) as number;
  raw.close();
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.filter((p) => schema.includes(p))).toEqual([]);
  const bytes = readFileSync(file);
  let x = 12345;
  for (const p of pages)
    for (let i = (p - 1) * size; i < p * size; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      bytes[i] = x >> 16;
    }
  writeFileSync(file, bytes);
  return bytes;
}

/**
 * The store file made read-only for this process: chmod 0444, or, for root (whom no mode
 * stops), the immutable attribute (chattr +i, which stops root too). Gives the undo, or
 * undefined when neither can be had here (chattr missing, a file system without attributes).
 */
function makeReadOnly(file: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    return () => chmodSync(file, 0o644);
  }
  try {
    execFileSync("chattr", ["+i", file], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  immutable.push(file);
  return () => {
    execFileSync("chattr", ["-i", file]);
    immutable.splice(immutable.indexOf(file), 1);
  };
}

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
      expect(r.stderr).toBe(`nor: ${damaged(file)}\n`);
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

describe("a SQLite store whose damage is met only after it opened", () => {
  it("every command that meets it says the store's path, that it is damaged and to restore a backup (exit 1), and nothing is written", async () => {
    const { data, file, catalog } = await storeWithCatalog();
    // Open reads the header, the schema and the migrations, all whole: the damage is met by
    // the first statement that reads one of these tables.
    const bytes = damagePages(file, ["sources", "site_rules", "flags", "request_log"]);
    for (const args of [
      ["status"],
      ["mark", "test-agendas", "--not-read", "--reason", "the clerk asked"],
      ["site"],
      ["site", "example.org", "--gap", "30s", "--reason", "the owner asked"],
      ["flags"],
      ["log"],
      ["catalog", "import", catalog],
    ]) {
      const r = await nor(...args, "--data", data);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(1);
      expect(r.stderr, args.join(" ")).toBe(`nor: ${damaged(file)}\n`);
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it("catalog import into a populated store damaged in the middle exits 1 with that message, not 0, and the store is left as it was", async () => {
    const d = tmp();
    const data = join(d, "data");
    const file = join(data, "nor.db");
    const many = (n: number, change = "") =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `test-source-${String(i).padStart(4, "0")}`,
          `records: agendas, access: feed, url: "http://127.0.0.1:9/${change}${i}.rss"`,
        ]),
      );
    const made = await nor(
      "catalog",
      "import",
      writeVillageCatalog(join(d, "first.yaml"), "Test", many(600)),
      "--data",
      data,
    );
    expect(made.code, made.stderr).toBe(0);
    // Every source's URL changed, and one source more: the import reads and writes every row.
    const second = writeVillageCatalog(join(d, "second.yaml"), "Test", many(601, "moved-"));
    const whole = readFileSync(file);
    const bytes = damagePages(file, ["sources"]);
    // A store of many pages, damaged well inside, past its first pages (the page size is the
    // header's big-endian 16 bits at offset 16).
    const size = whole.readUInt16BE(16);
    const first = whole.findIndex((b, i) => b !== bytes[i]);
    expect(whole.length / size).toBeGreaterThan(50);
    expect(first / size).toBeGreaterThan(5);

    const r = await nor("catalog", "import", second, "--data", data);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(`nor: ${damaged(file)}\n`);
    expect(r.stdout).toBe("");
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it("catalog import exits 0 over damage it never reads only because it wrote the whole import: its changes are in the store", async () => {
    const { data, file, catalog } = await storeWithCatalog();
    damagePages(file, ["records"]);
    const moved = writeVillageCatalog(join(tmp(), "moved.yaml"), "Test", {
      "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/moved.rss"',
      "test-minutes": 'records: minutes, access: feed, url: "http://127.0.0.1:9/m.rss"',
    });
    expect(catalog).not.toBe(moved);
    const r = await nor("catalog", "import", moved, "--data", data);
    expect(r.code, r.stderr).toBe(0);
    const raw = new Sqlite(file, { readonly: true });
    try {
      expect(raw.prepare("select id, url from sources order by id").all()).toEqual([
        { id: "test-agendas", url: "http://127.0.0.1:9/moved.rss" },
        { id: "test-minutes", url: "http://127.0.0.1:9/m.rss" },
      ]);
    } finally {
      raw.close();
    }
    // The damage is still there, and the first command that reads it says so.
    const status = await nor("status", "--data", data);
    expect(status.code, status.stderr).toBe(1);
    expect(status.stderr).toBe(`nor: ${damaged(file)}\n`);
  });

  it("a statement run straight on the connection, on its read-only connection or streamed says the store's path too (NorError E_STORE)", async () => {
    const { data, file } = await storeWithCatalog();
    damagePages(file, ["validators"]);
    const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
      db.selectFrom("validators").select("etag").where("url", "=", $("url")),
    );
    const said = { code: "E_STORE", message: damaged(file) };
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      // Straight on the store's connection (sqlite-direct.ts), nobody holding it.
      const direct = byUrl.first(store.db, { url: "http://a.example/" });
      await expect(direct).rejects.toBeInstanceOf(NorError);
      await expect(direct).rejects.toMatchObject(said);
      // On its read-only connection, while a transaction holds the store's own.
      await writeTxn(store.db, async () => {
        await expect(byUrl.first(store.db, { url: "http://a.example/" })).rejects.toMatchObject(
          said,
        );
      });
      // Through kysely: a statement, and a stream.
      await expect(store.db.selectFrom("validators").selectAll().execute()).rejects.toMatchObject(
        said,
      );
      const stream = async () => {
        for await (const _ of store.db.selectFrom("validators").selectAll().stream()) break;
      };
      await expect(stream()).rejects.toMatchObject(said);
    } finally {
      await store.close();
    }
  });
});

describe("a SQLite store whose file may not be written, met by a command that writes after it opened", () => {
  it("nor mark and nor site say the store's path and what to do (exit 2), not SQLite's words alone; nothing changes, and reading commands still read it", async (ctx) => {
    const { data, file } = await storeWithCatalog();
    const undo = makeReadOnly(file);
    if (undo === undefined) return ctx.skip();
    try {
      const before = readFileSync(file);
      for (const args of [
        ["mark", "test-agendas", "--not-read", "--reason", "the clerk asked"],
        ["site", "example.org", "--gap", "30s", "--reason", "the owner asked"],
        ["site", "example.org", "--leave-alone", "/permits/", "--reason", "the owner asked"],
        ["site", "example.org", "--not-read", "--reason", "the owner asked"],
        ["site", "example.org", "--read"],
      ]) {
        const r = await nor(...args, "--data", data);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
        expect(r.stderr, args.join(" ")).toBe(`nor: ${readOnly(file)}\n`);
        expect(r.stdout, args.join(" ")).toBe("");
      }
      expect(readFileSync(file).equals(before)).toBe(true);
      for (const args of [["status"], ["site"], ["flags"]]) {
        const r = await nor(...args, "--data", data);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      }
    } finally {
      undo();
    }
    // Writable again: the same mark is taken.
    const r = await nor("mark", "test-agendas", "--not-read", "--reason", "x", "--data", data);
    expect(r.code, r.stderr).toBe(0);
  });
});
