/**
 * Review 8 (second pass): two processes opening one SQLite data directory at once (several
 * commands on one data directory share its journal and site state, P9 and P27).
 * openStore runs kysely's migrator on every open. On PostgreSQL the migrator takes a lock
 * (its lock table, FOR UPDATE); on SQLite it takes none (the adapter's lock is a no-op, and
 * its DDL runs outside a transaction), so two processes both see the migrations pending and
 * both run them: on a new directory the second fails ("UNIQUE constraint failed:
 * kysely_migration.name", exit 1); on an upgrade, a migration that rebuilds a table (006 on
 * SQLite: request_log renamed, recreated, copied, dropped) can run twice over a half-done
 * first run.
 *
 * Here two connections in this process stand for two processes (`nor serve` started by
 * systemd beside `nor night`, or `nor discover` beside `nor start`, on a new data directory).
 *
 * Failed on main at 7aef13b, before the fix (it passes now). The fix suggested then: on SQLite, run the pending migrations
 * under the write lock: one `begin immediate` on the migrating connection held across them
 * (SQLite's DDL is transactional), re-reading kysely_migration inside it, so the second opener
 * waits and then finds nothing to do.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it("P27: two processes opening one new SQLite data directory at once both open it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-rev8b-migrate-"));
  dirs.push(dir);
  const opened = await Promise.allSettled([
    openStore({ kind: "sqlite", dir }),
    openStore({ kind: "sqlite", dir }),
  ]);
  for (const o of opened) if (o.status === "fulfilled") stores.push(o.value);
  expect(opened.map((o) => (o.status === "fulfilled" ? "opened" : String(o.reason)))).toEqual([
    "opened",
    "opened",
  ]);
});
