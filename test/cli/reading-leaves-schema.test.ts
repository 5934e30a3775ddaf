import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import type { StoreLocation } from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import { leftAt, rawStore, storeFactories } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * O6: the commands that only read the store never change its schema. A store an earlier version
 * left (a backup restored and looked at with a newer nor) is refused by them, exit 2, naming the
 * store, the migrations pending and what to do, and its table of migrations is as it was, so the
 * version that made it still reads it. A command that writes upgrades it, as before.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "nor-o6-"));
  dirs.push(d);
  return d;
};

const all = Object.keys(migrations);
const after = (m: string) => all.filter((n) => n > m);
const LAST_BUT_ONE = all[all.length - 2] as string;

/** kysely_migration's rows, name and time, in order: what "the store's schema version" is. */
async function migrationRows(loc: StoreLocation): Promise<string[]> {
  const db = rawStore(loc);
  try {
    const r = await sql<{ name: string; timestamp: string }>`select name, timestamp
      from kysely_migration order by name`.execute(db);
    return r.rows.map((row) => `${row.name} ${row.timestamp}`);
  } finally {
    await db.destroy();
  }
}

/**
 * A store as an earlier nor left it, at `migration`: on SQLite in WAL mode, as every nor store
 * is (the raw migrator leaves it in rollback mode, which opening it would change).
 */
async function olderStore(loc: StoreLocation, migration: string): Promise<void> {
  await leftAt(loc, migration, async () => {});
  if (loc.kind === "sqlite") {
    const raw = new Sqlite(join(loc.dir, "nor.db"));
    raw.pragma("journal_mode = WAL");
    raw.close();
  }
}

/** `nor ARGS` on the store at `loc`: --data DIR on SQLite, NOR_DATABASE_URL on PostgreSQL. */
function norOn(loc: StoreLocation, data: string, args: string[]) {
  return loc.kind === "sqlite"
    ? runMain([...args, "--data", loc.dir])
    : runMain([...args, "--data", data], { env: { NOR_DATABASE_URL: loc.url } });
}

const where = (loc: StoreLocation) =>
  loc.kind === "sqlite" ? join(loc.dir, "nor.db") : "postgres://";

describe.each(storeFactories())(
  "commands that only read, on a store an earlier version left ($name)",
  (factory) => {
    it("`nor status` and `nor log` refuse it (exit 2), naming the store, every migration pending and what to do, and leave its migrations as they were", async () => {
      const loc = await factory.fresh();
      await olderStore(loc, "017-night-user-agent");
      const before = await migrationRows(loc);
      const bytes = loc.kind === "sqlite" ? readFileSync(join(loc.dir, "nor.db")) : undefined;
      const data = tmp();
      const pending = after("017-night-user-agent");
      for (const args of [["status"], ["log"]]) {
        const r = await norOn(loc, data, args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stdout).toBe("");
        expect(r.stderr).not.toContain("upgrading");
        expect(r.stderr).toMatch(/^nor: /);
        expect(r.stderr).toContain(where(loc));
        expect(r.stderr).toContain(
          `was made by an earlier version of nor: ${pending.length} migrations are pending (${pending.join(", ")})`,
        );
        expect(r.stderr).toContain("changed nothing and an older nor can still read the store");
        expect(r.stderr).toContain('back it up first (docs/operations.md, "Backups")');
        expect(r.stderr).toContain("`nor start`, `nor night`, `nor serve`, `nor catalog import`");
        expect(r.stderr).toContain("Or read it with the version of nor that made it");
      }
      expect(await migrationRows(loc)).toEqual(before);
      if (loc.kind === "sqlite" && bytes)
        expect(readFileSync(join(loc.dir, "nor.db")).equals(bytes)).toBe(true);
    });

    it("so do `nor flags`, `nor site` listing, `nor archive show|verify|cdx` and `nor reparse`, one migration behind, and the store is left as it was", async () => {
      const loc = await factory.fresh();
      await olderStore(loc, LAST_BUT_ONE);
      const before = await migrationRows(loc);
      const data = tmp();
      // The archive is looked for in --data only after the store opened; made anyway.
      if (loc.kind === "sqlite") mkdirSync(join(loc.dir, "archive"));
      else mkdirSync(join(data, "archive"));
      const catalog = writeVillageCatalog(join(tmp(), "catalog.yaml"), "Old", {
        "old-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
      });
      const last = all[all.length - 1] as string;
      for (const args of [
        ["flags"],
        ["flags", "--all", "--json"],
        ["site"],
        ["site", "example.org"],
        ["archive", "show", "http://127.0.0.1:9/a.rss"],
        ["archive", "verify"],
        ["archive", "cdx"],
        ["reparse", "--catalog", catalog],
      ]) {
        const r = await norOn(loc, data, args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
        expect(r.stdout, args.join(" ")).toBe("");
        expect(r.stderr, args.join(" ")).toContain(
          `was made by an earlier version of nor: 1 migration is pending (${last})`,
        );
      }
      expect(await migrationRows(loc)).toEqual(before);
    });

    it("a command that writes still upgrades it, saying so, and then the reading commands read it", async () => {
      const loc = await factory.fresh();
      await olderStore(loc, "017-night-user-agent");
      const data = tmp();
      const refused = await norOn(loc, data, ["status"]);
      expect(refused.code, refused.stderr).toBe(2);
      const catalog = writeVillageCatalog(join(tmp(), "catalog.yaml"), "Old", {
        "old-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
      });
      const imported = await norOn(loc, data, ["catalog", "import", catalog]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toContain("nor: upgrading the store at");
      expect((await migrationRows(loc)).map((r) => r.split(" ")[0])).toEqual(all);
      for (const args of [["status"], ["log"], ["flags"], ["site"]]) {
        const r = await norOn(loc, data, args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        expect(r.stderr).toBe("");
      }
    });

    it("`nor flags --clear` and a `nor site` change write, so they upgrade it", async () => {
      const loc = await factory.fresh();
      await olderStore(loc, LAST_BUT_ONE);
      const data = tmp();
      const site = await norOn(loc, data, [
        ...["site", "example.org", "--gap", "30s", "--reason", "the owner asked"],
      ]);
      expect(site.code, site.stderr).toBe(0);
      expect(site.stderr).toContain("nor: upgrading the store at");
      expect((await migrationRows(loc)).map((r) => r.split(" ")[0])).toEqual(all);
      // Clearing a flag writes: the store is upgraded before the id is looked for (none here).
      const other = await factory.fresh();
      await olderStore(other, LAST_BUT_ONE);
      const clear = await norOn(other, data, ["flags", "--clear", "no-such-flag"]);
      expect(clear.stderr).toContain("nor: upgrading the store at");
      expect(clear.stderr).toContain('no flag with id "no-such-flag"');
      expect(clear.code).toBe(2);
      expect((await migrationRows(other)).map((r) => r.split(" ")[0])).toEqual(all);
    });
  },
);

describe("a SQLite store no migration has run on (its making cut short)", () => {
  it("is refused by `nor status` (exit 2) as no store yet, and nothing is made in it", async () => {
    const dir = tmp();
    const file = join(dir, "nor.db");
    const raw = new Sqlite(file);
    raw.pragma("journal_mode = WAL");
    raw.close();
    const bytes = readFileSync(file);
    const r = await runMain(["status", "--data", dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nor: no store at ${file} yet (none of its migrations has run: one being made, or whose making was cut short): \`nor catalog import\` or \`nor night\` makes one; this command only reads, and changed nothing\n`,
    );
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });
});
