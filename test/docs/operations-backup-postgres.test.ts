import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";
import { ROOT } from "../cli/run-nor.js";
import { postgresUrl, withSearchPath } from "../store/stores.js";

/**
 * docs/operations.md, "Backups", PostgreSQL, followed as an operator types it: a store in a
 * schema of its own (its search_path in NOR_DATABASE_URL's options, beside other schemas in the
 * same database), dumped and restored with the commands the bullet gives. The restore said "into
 * an empty database (or schema)": into an empty schema pg_restore stops on `CREATE SCHEMA`
 * (already exists, exit 1), and the dump of the database took every other schema with it.
 */
const DOC = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");
const BACKUPS = DOC.slice(DOC.indexOf("## Backups"), DOC.indexOf("## Upgrading"));
const BULLET =
  BACKUPS.replace(/\n\s*/g, " ")
    .split(/ - /)
    .find((b) => b.startsWith("PostgreSQL:")) ?? "";
const SPANS = [...BULLET.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

const hasTools =
  spawnSync("/bin/sh", ["-c", "command -v pg_dump && command -v pg_restore"]).status === 0;
const base = postgresUrl ?? "";
const tag = `nor_docs_pg_${process.pid}_${Date.now().toString(36)}`;
const store = `${tag}_store`;
const other = `${tag}_other`;
const databases = [`${tag}_a`, `${tag}_b`];
/** Made in beforeAll: a file skipped (no PostgreSQL) leaves nothing behind. */
let dir = "";

const admin = async (url: string, text: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
};
const inDatabase = (name: string) => {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.href;
};

/** A documented command, its URL the one given (quoted for sh), run in the project. */
function run(command: string, url: string): { status: number | null; stderr: string } {
  const line = command
    .replaceAll("postgres://…", `'${url}'`)
    .replaceAll("SCHEMA", store)
    .replaceAll("/backup/", `${dir}/`);
  const r = spawnSync("/bin/sh", ["-c", line], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

describe.runIf(postgresUrl !== undefined && hasTools)(
  "docs/operations.md, Backups: PostgreSQL's backup and restore as written, for a store in a schema of its own",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nor-docs-pg-backup-"));
      await admin(base, `create schema "${store}"; create schema "${other}"`);
      await admin(base, `create table "${other}".not_nor (x int)`);
      const catalog = writeVillageCatalog(join(dir, "c.yaml"), "Dumps", {
        "dumps-feed": 'records: agendas, access: feed, url: "https://www.example.gov/a.rss"',
      });
      const r = await runMain(["catalog", "import", catalog, "--data", join(dir, "data")], {
        env: { NOR_DATABASE_URL: withSearchPath(base, store) },
      });
      expect(r.code, r.stderr).toBe(0);
    });

    afterAll(async () => {
      for (const d of databases)
        await admin(base, `drop database if exists "${d}" with (force)`).catch(() => {});
      await admin(base, `drop schema if exists "${store}" cascade`).catch(() => {});
      await admin(base, `drop schema if exists "${other}" cascade`).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    });

    it("dumped as written and restored as written into an empty database: that store alone, which nor status reads", async () => {
      const dump =
        SPANS.find((s) => s.startsWith("pg_dump ") && s.includes(" -n ")) ??
        SPANS.find((s) => s.startsWith("pg_dump "));
      const restore = SPANS.find((s) => s.startsWith("pg_restore "));
      expect(dump, SPANS.join(" | ")).toBeDefined();
      expect(restore, SPANS.join(" | ")).toBeDefined();
      const d = run(dump as string, withSearchPath(base, store));
      expect(d.status, d.stderr).toBe(0);
      const into = databases[0] as string;
      await admin(base, `create database "${into}"`);
      const r = run(restore as string, inDatabase(into));
      expect(r.status, r.stderr).toBe(0);
      // The store's schema, and nothing else the database held beside it.
      const c = new pg.Client({ connectionString: inDatabase(into) });
      await c.connect();
      let schemas: string[];
      try {
        schemas = (
          await c.query<{ s: string }>(
            "select nspname as s from pg_namespace where nspname like 'nor_%' order by 1",
          )
        ).rows.map((x) => x.s);
      } finally {
        await c.end();
      }
      expect(schemas).toEqual([store]);
      const status = await runMain(["status", "--data", join(dir, "data")], {
        env: { NOR_DATABASE_URL: withSearchPath(inDatabase(into), store) },
      });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain("dumps-feed");
    });

    it("a restore into an empty schema of that name stops (schema … already exists, exit 1): the bullet says so, never offers one", async () => {
      const dump =
        SPANS.find((s) => s.startsWith("pg_dump ") && s.includes(" -n ")) ??
        SPANS.find((s) => s.startsWith("pg_dump "));
      const restore = SPANS.find((s) => s.startsWith("pg_restore ")) as string;
      expect(run(dump as string, withSearchPath(base, store)).status).toBe(0);
      const into = databases[1] as string;
      await admin(base, `create database "${into}"`);
      await admin(inDatabase(into), `create schema "${store}"`);
      const r = run(restore, inDatabase(into));
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain("already exists");
      expect(BULLET).not.toMatch(/\(or schema\)/);
      expect(BULLET).toContain("already exists");
    });
  },
);
