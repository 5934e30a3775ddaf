import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "../cli/cli-capture.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * A store file this user may not read (`chmod 000 nor.db`) was said to be "read-only (not
 * writable by this user: EACCES)", which making it writable would not mend. It is said as
 * unreadable, by path, exit 2, as a read-only store is.
 *
 * Root reads any file whatever its mode, so as root the command runs as nobody (setpriv), in a
 * process of its own; as any other user it runs here. Skipped only as root without setpriv.
 */
const isRoot = process.getuid?.() === 0;
const hasSetpriv = isRoot && spawnSync("setpriv", ["--version"]).status === 0;

async function asUnprivileged(args: string[]): Promise<{ code: number | null; stderr: string }> {
  if (!isRoot) return nor(...args);
  const env = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  const r = spawnSync(
    "setpriv",
    [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      process.execPath,
      join(ROOT, "bin", "nor.js"),
      ...args,
    ],
    { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
  );
  return { code: r.status, stderr: r.stderr };
}

describe.skipIf(isRoot && !hasSetpriv)("a store file this user may not read", () => {
  const d = mkdtempSync(join(tmpdir(), "nor-unreadable-"));
  afterAll(() => rmSync(d, { recursive: true, force: true }));

  it("is said as unreadable, not as read-only, by path (exit 2), by a command that writes and by one that reads", async () => {
    chmodSync(d, 0o755);
    const catalog = join(d, "c.yaml");
    writeFileSync(
      catalog,
      "governments:\n  - { id: city-of-x, name: City of X, kind: city }\nsources: []\n",
    );
    chmodSync(catalog, 0o644);
    const data = join(d, "data");
    const made = await nor("catalog", "import", catalog, "--data", data);
    expect(made.code, made.stderr).toBe(0);
    chmodSync(data, 0o755);
    const file = join(data, "nor.db");
    chmodSync(file, 0o000);
    try {
      for (const args of [["catalog", "import", catalog], ["status"], ["log"]]) {
        const r = await asUnprivileged([...args, "--data", data]);
        expect(r.stderr, args.join(" ")).toBe(
          `nor: ${file} cannot be read by this user (EACCES): nor reads and writes its store; make the file readable and writable for this user, or choose another --data\n`,
        );
        expect(r.code, args.join(" ")).toBe(2);
      }
    } finally {
      chmodSync(file, 0o644);
    }
  });
});
