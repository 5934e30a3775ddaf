import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";
import { oneFeedSite } from "../cli/one-feed.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * docs/operations.md, "Backups", followed as an operator types it: the SQLite backup commands
 * it gives, run on a store a real loopback night made, and the restore it describes. A mistyped
 * DATA must not be answered with an empty store made there and "backed up" (exit 0); a restore
 * over a data directory a crash left a WAL in must be the store as it was backed up.
 */
const DOC = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");
const BACKUPS = DOC.slice(DOC.indexOf("## Backups"), DOC.indexOf("## Upgrading"));

/** The inline commands of "Backups" that take an online backup of DATA/nor.db. */
function backupCommands(): { sqlite3: string; node: string } {
  const spans = [...BACKUPS.replace(/\n\s*/g, " ").matchAll(/`([^`]+\.backup[^`]+)`/g)].map(
    (m) => m[1] as string,
  );
  const sqlite3 = spans.find((s) => s.startsWith("sqlite3 "));
  const node = spans.find((s) => s.startsWith("node -e "));
  if (sqlite3 === undefined || node === undefined)
    throw new Error(`no sqlite3 and node backup commands in "Backups": ${spans.join(" | ")}`);
  return { sqlite3, node };
}

/** A documented command with DATA and /backup/ made real paths, run by sh in the project. */
function run(command: string, data: string, backups: string): { status: number | null } {
  const line = command.replaceAll("DATA/", `${data}/`).replaceAll("/backup/", `${backups}/`);
  return spawnSync("/bin/sh", ["-c", line], { cwd: ROOT, stdio: "ignore", timeout: 60_000 });
}

const hasSqlite3 = spawnSync("/bin/sh", ["-c", "command -v sqlite3"]).status === 0;

const dir = mkdtempSync(join(tmpdir(), "nor-docs-backup-"));
const data = join(dir, "data");
let site: Awaited<ReturnType<typeof oneFeedSite>>;

beforeAll(async () => {
  site = await oneFeedSite();
  const catalog = writeVillageCatalog(join(dir, "c.yaml"), "Backups", {
    "backups-feed": `records: agendas, access: feed, url: "${site.feed}"`,
  });
  const r = await runMain([
    "night",
    ...["--catalog", catalog, "--data", data],
    ...["--allow-private-addresses", "--gap-ms", "0"],
  ]);
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

function titles(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare("select title from records order by title").all() as { title: string }[]
    ).map((r) => r.title);
  } finally {
    db.close();
  }
}

describe("docs/operations.md, Backups: the SQLite backup and restore as written", () => {
  it("the node backup command, given a DATA with no store (mistyped), fails and makes no nor.db there", () => {
    const typo = join(dir, "typo-node");
    const backups = join(dir, "backups-node");
    mkdirSync(typo);
    mkdirSync(backups);
    expect(run(backupCommands().node, typo, backups).status).not.toBe(0);
    expect(readdirSync(typo)).toEqual([]);
  });

  it.runIf(hasSqlite3)(
    "the sqlite3 backup command, given a DATA with no store (mistyped), fails and makes no nor.db there",
    () => {
      const typo = join(dir, "typo-sqlite3");
      const backups = join(dir, "backups-sqlite3");
      mkdirSync(typo);
      mkdirSync(backups);
      expect(run(backupCommands().sqlite3, typo, backups).status).not.toBe(0);
      expect(readdirSync(typo)).toEqual([]);
    },
  );

  it("a backup taken as written, restored as written over a data directory a crash left a WAL in, is the store as backed up", async () => {
    const backups = join(dir, "backups");
    mkdirSync(backups);
    expect(run(backupCommands().node, data, backups).status).toBe(0);
    const backup = join(backups, "nor.db");
    expect(titles(backup)).toEqual(["Agenda"]);

    // After the backup, a process writes and is killed before it checkpoints: its writes are in
    // DATA/nor.db-wal alone (the crash that the restore is for).
    const crash = spawnSync(
      process.execPath,
      [
        "-e",
        `const db = require("better-sqlite3")(${JSON.stringify(join(data, "nor.db"))});
         db.pragma("wal_autocheckpoint = 0");
         db.prepare("update records set title = 'written after the backup'").run();
         process.kill(process.pid, "SIGKILL");`,
      ],
      { cwd: ROOT, stdio: "ignore", timeout: 60_000 },
    );
    expect(crash.signal).toBe("SIGKILL");
    expect(existsSync(join(data, "nor.db-wal"))).toBe(true);

    // Put back as the restore bullet says: it names the store's WAL and shared-memory files as
    // moved aside with nor.db (a WAL left beside the backup is read as part of it).
    const restore = BACKUPS.replace(/\n\s*/g, " ")
      .split(/ - /)
      .find((b) => b.startsWith("A restore is"));
    expect(restore, "no bullet beginning 'A restore is'").toBeDefined();
    // What it says to do, before "`nor status --data DIR` reads it".
    const steps = (restore as string).slice(0, (restore as string).indexOf("reads it"));
    expect(steps).toContain("`nor.db-wal`");
    expect(steps).toContain("`nor.db-shm`");
    const aside = join(dir, "aside");
    mkdirSync(aside);
    for (const f of ["nor.db", "nor.db-wal", "nor.db-shm"])
      if (existsSync(join(data, f))) renameSync(join(data, f), join(aside, f));
    copyFileSync(backup, join(data, "nor.db"));

    const status = await runMain(["status", "--data", data]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("backups-feed");
    expect(titles(join(data, "nor.db"))).toEqual(["Agenda"]);

    // Why: the same backup put in with the crashed store's WAL left beside it reads as the
    // store after the backup, not as the backup.
    const mixed = join(dir, "mixed");
    mkdirSync(mixed);
    copyFileSync(backup, join(mixed, "nor.db"));
    copyFileSync(join(aside, "nor.db-wal"), join(mixed, "nor.db-wal"));
    expect(titles(join(mixed, "nor.db"))).toEqual(["written after the backup"]);
  });
});
