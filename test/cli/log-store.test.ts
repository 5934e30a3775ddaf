import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { entry } from "../store/entries.js";
import { postgresUrl, withSearchPath } from "../store/stores.js";
import { runMain } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/** A separate Node process that logs attempts through the built store and acks each one. */
const writer = (dir: string) => `
import { openStore } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist/store/db.js")).href)};
import { SqlRequestLog } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist/store/request-log.js")).href)};
const store = await openStore({ kind: "sqlite", dir: ${JSON.stringify(dir)} });
const log = new SqlRequestLog(store.db);
const base = ${JSON.stringify(entry())};
for (let i = 0; i < 100000; i++) {
  await log.append({ ...base, startedAt: base.startedAt + i, attempt: i });
  process.stdout.write(i + "\\n");
}
`;

describe("the request log across processes (P27)", () => {
  const dirs: string[] = [];
  beforeAll(() => buildCli());
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P27: every attempt acknowledged before a kill -9 is in the log afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-crash-"));
    dirs.push(dir);
    const child = spawn(process.execPath, ["--input-type=module", "-e", writer(dir)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let acked = -1;
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => {
      child.on("exit", (_code, signal) => resolve(signal));
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`writer stalled: ${stderr}`)), 20_000);
      child.stdout.on("data", (b: Buffer) => {
        const last = b.toString().trim().split("\n").at(-1);
        acked = Math.max(acked, Number(last));
        if (acked >= 200) {
          // Mid-stream, without warning: no close, no flush, no exit handlers.
          child.kill("SIGKILL");
          clearTimeout(timer);
          resolve();
        }
      });
      child.on("exit", () => {
        clearTimeout(timer);
        if (acked < 200) reject(new Error(`writer exited early: ${stderr}`));
      });
    });
    expect(await exited).toBe("SIGKILL");
    const store = await openStore({ kind: "sqlite", dir }, { create: false });
    const rows = await new SqlRequestLog(store.db).query();
    await store.close();
    const attempts = new Set(rows.map((r) => r.attempt));
    for (let i = 0; i <= acked; i++) expect(attempts.has(i)).toBe(true);
  });

  it.skipIf(!postgresUrl)("P27: nor log reads PostgreSQL through NOR_DATABASE_URL", async () => {
    const base = postgresUrl ?? "";
    const schema = `nor_cli_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    try {
      const url = withSearchPath(base, schema);
      const store = await openStore({ kind: "postgres", url });
      const log = new SqlRequestLog(store.db);
      await log.append(
        entry({ startedAt: Date.UTC(2026, 10, 5, 8, 12, 4), url: "https://example.gov/x" }),
      );
      await log.append(
        entry({ startedAt: Date.UTC(2026, 10, 5, 9, 0), url: "https://example.gov/y" }),
      );
      await store.close();
      const r = await runMain(
        [
          "log",
          "--since",
          "2026-11-05 03:11",
          "--until",
          "2026-11-05 03:13",
          "--site",
          "example.gov",
          "--jsonl",
        ],
        { env: { NOR_DATABASE_URL: url } },
      );
      expect(r.stderr).toBe("");
      const got = r.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { url: string }).url);
      expect(got).toEqual(["https://example.gov/x"]);
    } finally {
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  });

  it.skipIf(!postgresUrl)(
    "a command that reads the store is refused on a PostgreSQL database that holds none (exit 2, naming it), and makes none there",
    async () => {
      const base = postgresUrl ?? "";
      const schema = `nor_cli_empty_${process.pid}_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`create schema "${schema}"`);
      try {
        const url = withSearchPath(base, schema);
        for (const args of [["log"], ["status"]]) {
          const r = await runMain(args, { env: { NOR_DATABASE_URL: url } });
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toContain(`no store in the PostgreSQL database at`);
          expect(r.stderr).toContain(`(schema ${schema})`);
          expect(r.stderr).toContain("`nor catalog import` or `nor night` creates one");
          expect(r.stdout).toBe("");
        }
        const tables = await admin.query(
          "select table_name from information_schema.tables where table_schema = $1",
          [schema],
        );
        expect(tables.rows).toEqual([]);
      } finally {
        await admin.query(`drop schema if exists "${schema}" cascade`);
        await admin.end();
      }
    },
  );
});
