/**
 * Several processes opening one SQLite store at once (`nor serve` started beside `nor night`,
 * `nor night --workers N` on a new data directory, any two commands after an upgrade): the
 * pending migrations run once, under the write lock, and every opener opens the store.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Sqlite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { migrationProvider, migrations } from "../../src/store/migrations/index.js";
import { buildCli, ROOT } from "../cli/run-nor.js";
import { describeSqliteStore } from "./sqlite-description.js";

/**
 * One process opening a SQLite store (running its pending migrations), as `nor` does: with the
 * built module (dist/, compiled from this src/ by the run's global setup, test/global-build.ts),
 * so each process starts in a fraction of a second, not after transforming src/ itself. It
 * prints `opened` or the error, then closes.
 */
const OPEN_CHILD = `const { openStore } = await import(process.argv[1]);
try {
  const store = await openStore({ kind: "sqlite", dir: process.argv[2] });
  await store.close();
  process.stdout.write("opened\\n");
} catch (err) {
  process.stdout.write(\`failed: \${String(err)}\\n\`);
  process.exitCode = 1;
}`;
const DB_MODULE = pathToFileURL(join(ROOT, "dist", "store", "db.js")).href;

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "nor-migrate-once-"));
  dirs.push(dir);
  return dir;
}

/** A store as an older version left it: migrated up to 005, one request in its log. */
async function olderStore(dir: string): Promise<void> {
  const sqlite = new Sqlite(join(dir, "nor.db"));
  sqlite.pragma("journal_mode = WAL");
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
      "005-console",
    );
    if (error) throw error;
  } finally {
    await db.destroy();
  }
  const again = new Sqlite(join(dir, "nor.db"));
  again
    .prepare(
      `insert into request_log (started_at, ended_at, method, url, outcome, site, origin, purpose)
       values ('2026-11-05T08:12:00.000Z', '2026-11-05T08:12:01.000Z', 'GET',
       'http://127.0.0.2/agendas', 'ok', '127.0.0.2', 'http://127.0.0.2', 'page')`,
    )
    .run();
  again.close();
}

/** What the store holds afterwards: each migration's row, and the request log's rows. */
function contents(dir: string): { ran: string[]; requests: number } {
  const sqlite = new Sqlite(join(dir, "nor.db"), { readonly: true });
  try {
    const ran = sqlite
      .prepare("select name from kysely_migration order by name")
      .all()
      .map((r) => (r as { name: string }).name);
    const requests = (
      sqlite.prepare("select count(*) as n from request_log").get() as { n: number }
    ).n;
    return { ran, requests };
  } finally {
    sqlite.close();
  }
}

/** Runs OPEN_CHILD in `n` processes at once; each prints `opened` or why it failed. */
async function openInProcesses(dir: string, n: number): Promise<string[]> {
  buildCli();
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<string>((resolve) => {
          const p = spawn(
            process.execPath,
            ["--input-type=module", "-e", OPEN_CHILD, DB_MODULE, dir],
            {
              stdio: ["ignore", "pipe", "pipe"],
            },
          );
          let out = "";
          let err = "";
          p.stdout.on("data", (d) => {
            out += String(d);
          });
          p.stderr.on("data", (d) => {
            err += String(d);
          });
          const kill = setTimeout(() => p.kill("SIGKILL"), 120_000);
          p.on("exit", (code) => {
            clearTimeout(kill);
            resolve(out.trim() || `exit ${code}: ${err.trim()}`);
          });
        }),
    ),
  );
}

const all = Object.keys(migrations).sort();

describe("migrations run once when several open one SQLite store (P27)", () => {
  it("P27: two openers of a store an older version left, at once, both open it, and its table-rebuilding migration runs once", async () => {
    const dir = newDir();
    await olderStore(dir);
    const opened = await Promise.allSettled([
      openStore({ kind: "sqlite", dir }),
      openStore({ kind: "sqlite", dir }),
    ]);
    for (const o of opened) if (o.status === "fulfilled") stores.push(o.value);
    expect(opened.map((o) => (o.status === "fulfilled" ? "opened" : String(o.reason)))).toEqual([
      "opened",
      "opened",
    ]);
    for (const s of stores.splice(0)) await s.close();
    expect(contents(dir)).toEqual({ ran: all, requests: 1 });
  });

  it("P27: three processes opening one new store, then three opening one an older version left, all open it with every migration run once", async () => {
    const fresh = newDir();
    expect(await openInProcesses(fresh, 3)).toEqual(["opened", "opened", "opened"]);
    expect(contents(fresh)).toEqual({ ran: all, requests: 0 });

    const older = newDir();
    await olderStore(older);
    expect(await openInProcesses(older, 3)).toEqual(["opened", "opened", "opened"]);
    expect(contents(older)).toEqual({ ran: all, requests: 1 });
  }, 180_000);

  it("P27: openers of one new store at once, in processes and in this one, some by the snapshot and one by the migrations, end with the one store every migration makes", async () => {
    const reference = newDir();
    await (await openStore({ kind: "sqlite", dir: reference }, { bySnapshot: false })).close();
    const want = describeSqliteStore(reference);

    const spawned = newDir();
    expect(await openInProcesses(spawned, 3)).toEqual(["opened", "opened", "opened"]);
    expect(describeSqliteStore(spawned)).toEqual(want);

    for (let round = 0; round < 3; round++) {
      const here = newDir();
      const opened = await Promise.allSettled([
        openStore({ kind: "sqlite", dir: here }),
        openStore({ kind: "sqlite", dir: here }, { bySnapshot: false }),
        openStore({ kind: "sqlite", dir: here }),
      ]);
      for (const o of opened) if (o.status === "fulfilled") stores.push(o.value);
      expect(opened.map((o) => (o.status === "fulfilled" ? "opened" : String(o.reason)))).toEqual([
        "opened",
        "opened",
        "opened",
      ]);
      for (const st of stores.splice(0)) await st.close();
      expect(describeSqliteStore(here)).toEqual(want);
    }
  }, 180_000);

  it("P27: a store with nothing to migrate is opened without taking the write lock", async () => {
    const dir = newDir();
    stores.push(await openStore({ kind: "sqlite", dir }));
    // Another process holds the write lock (a long transaction): opening only reads.
    const writer = new Sqlite(join(dir, "nor.db"));
    writer.exec("begin immediate");
    try {
      const s = await openStore({ kind: "sqlite", dir });
      stores.push(s);
    } finally {
      writer.exec("rollback");
      writer.close();
    }
  });
});
