import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * An outside tester's finding: a `nor demo --data DIR` that failed once it had claimed DIR (its
 * store could not be written: a full disk, a file-size limit) left `demo-catalog.yaml` and a
 * store cut short behind, so the same --data was then refused as not empty. A failed demo takes
 * away what it made there, and the directories it made, and nothing else. A process of its own:
 * the file-size limit (`ulimit -f`) is the process's.
 */
function demoUnderFileSizeLimit(data: string): Promise<{ code: number | null; stderr: string }> {
  const env = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  return new Promise((resolve, reject) => {
    // `ulimit -f` counts 512- or 1024-byte blocks, by shell: room for the demo's catalog (about
    // 3 KB), far too little for its store.
    const p = spawn(
      "/bin/sh",
      [
        "-c",
        `ulimit -f 40 && exec "$0" "$@"`,
        process.execPath,
        join(ROOT, "bin", "nor.js"),
        ...["demo", "--headless", "--port", "0", "--gap-ms", "0", "--data", data],
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    p.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    p.on("error", reject);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a nor demo that fails once it has claimed its --data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-demo-failed-"));
  beforeAll(() => buildCli());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves nothing it made in a new --data: no catalog, no store, not even the directories it made", async () => {
    const top = join(dir, "new");
    mkdirSync(top);
    const data = join(top, "a", "b");
    const r = await demoUnderFileSizeLimit(data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nor: ${join(data, "nor.db")} could not be written`);
    expect(readdirSync(top)).toEqual([]);
  }, 90_000);

  it("leaves an empty --data that was there as it was: there, and empty", async () => {
    const data = join(dir, "empty");
    mkdirSync(data);
    const r = await demoUnderFileSizeLimit(data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nor: ${join(data, "nor.db")} could not be written`);
    expect(readdirSync(data)).toEqual([]);
  }, 90_000);
});
