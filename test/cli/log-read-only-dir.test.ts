import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";
import { ROOT } from "./run-nor.js";

/**
 * An outside tester's question: `nor log` run by a user who may read the store but not write in
 * its data directory (a store of the `nor` user's, a backup on a read-only mount). SQLite reads a
 * store in WAL mode beside its shared-memory file, which it must make when no other process has
 * the store open: there it cannot, and `nor log` said the store was "read-only … nor writes to
 * its store", which `nor log` does not. It says why it cannot read it, by path, exit 2, and what
 * to do instead; while another process has the store open (`nor serve`, a night), it reads it.
 *
 * Root may write anywhere: as root the command runs as nobody (setpriv), in a process of its
 * own; as any other user it runs here. Skipped only as root without setpriv.
 */
const isRoot = process.getuid?.() === 0;
const hasSetpriv = isRoot && spawnSync("setpriv", ["--version"]).status === 0;

async function asReader(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!isRoot) return nor(...args);
  const env = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  const r = spawnSync(
    "setpriv",
    [
      ...["--reuid=65534", "--regid=65534", "--clear-groups"],
      ...[process.execPath, join(ROOT, "bin", "nor.js"), ...args],
    ],
    { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(isRoot && !hasSetpriv)(
  "a store in a data directory this user may only read",
  () => {
    const d = mkdtempSync(join(tmpdir(), "nor-read-only-dir-"));
    afterAll(() => {
      chmodSync(join(d, "data"), 0o755);
      rmSync(d, { recursive: true, force: true });
    });

    it("nor log and nor status say why they cannot read it, by path (exit 2, no stack), and read it while another process has it open", async () => {
      chmodSync(d, 0o755);
      const catalog = join(d, "c.yaml");
      writeFileSync(
        catalog,
        "governments:\n  - { id: city-of-x, name: City of X, kind: city }\nsources: []\n",
      );
      const data = join(d, "data");
      const made = await nor("catalog", "import", catalog, "--data", data);
      expect(made.code, made.stderr).toBe(0);
      const file = join(data, "nor.db");
      chmodSync(file, 0o644);
      // Readable by all, writable by its owner only (as root: not by nobody).
      chmodSync(data, isRoot ? 0o755 : 0o555);
      const before = readdirSync(data).sort();
      for (const args of [["log"], ["status"]]) {
        const r = await asReader([...args, "--data", data]);
        expect(r.stderr, args.join(" ")).toBe(
          `nor: ${file} cannot be read here: SQLite reads a nor store beside its shared-memory file (nor.db-shm), which it makes there when no other process has the store open, and ${data} is not writable by this user (permission denied); run the command as the user nor runs as, or while \`nor serve\` or a night has the store open, or on a copy of the store in a directory you may write in (docs/operations.md, "Backups")\n`,
        );
        expect(r.code, args.join(" ")).toBe(2);
      }
      expect(readdirSync(data).sort()).toEqual(before);

      // Another process of the store's owner has it open (as `nor serve` would): its shared-memory
      // file is there, readable, and the reader reads the store through it.
      chmodSync(data, 0o755);
      const owner = new Database(file);
      try {
        owner.pragma("journal_mode = WAL");
        owner.prepare("select count(*) from request_log").get();
        if (!isRoot) chmodSync(data, 0o555);
        const log = await asReader(["log", "--data", data]);
        expect(log.stderr).toBe("");
        expect(log.code).toBe(0);
        expect(log.stdout).toBe("no attempts match\n");
      } finally {
        owner.close();
      }
    }, 90_000);
  },
);
