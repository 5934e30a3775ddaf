import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";
import { ROOT } from "./run-nor.js";

/**
 * `nor demo --data DIR` checks DIR as every other command checks its data directory
 * (src/store/data-dir.ts) before it starts anything: a directory it could not write its catalog
 * and store in is refused in words (exit 2), with no site started and no line of the banner,
 * not met as a raw EACCES or ENOTDIR once the sites are up.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-demo-data-dir-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) {
    chmodSync(d, 0o700);
    for (const name of readdirSync(d)) chmodSync(join(d, name), 0o700);
    rmSync(d, { recursive: true, force: true });
  }
});

/** The demo's arguments: headless, any free port, no pace (it never gets that far). */
const demo = (data: string) => [
  "demo",
  "--headless",
  "--port",
  "0",
  "--gap-ms",
  "0",
  "--data",
  data,
];

describe("nor demo --data that cannot be used", () => {
  it("a path under a file is refused before anything starts (exit 2), naming the file in the way", async () => {
    const d = tmp();
    const file = join(d, "afile");
    writeFileSync(file, "not a directory\n");
    const data = join(file, "sub", "data");
    const r = await runMain(demo(data));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nor: the store location ${data} cannot be made: ${file} is not a directory; choose another --data\n`,
    );
    expect(r.stderr).not.toContain("ENOTDIR");
    // No banner, no site started.
    expect(r.stdout).toBe("");
    expect(readFileSync(file, "utf8")).toBe("not a directory\n");
  });

  // Root may write in any directory whatever its mode: as root the demo runs as nobody
  // (setpriv), in a process of its own; as any other user it runs here. Skipped only as root
  // without setpriv.
  const isRoot = process.getuid?.() === 0;
  const hasSetpriv = isRoot && spawnSync("setpriv", ["--version"]).status === 0;

  it.skipIf(isRoot && !hasSetpriv)(
    "an empty directory this user may not write is refused before anything starts (exit 2), in the words of every other command",
    async () => {
      const d = tmp();
      const ro = join(d, "rodir");
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      chmodSync(d, 0o755);
      let r: { code: number | null; stdout: string; stderr: string };
      if (!isRoot) {
        r = await runMain(demo(ro));
      } else {
        const env = { ...process.env };
        delete env["NOR_DATABASE_URL"];
        const p = spawnSync(
          "setpriv",
          [
            ...["--reuid=65534", "--regid=65534", "--clear-groups"],
            ...[process.execPath, join(ROOT, "bin", "nor.js"), ...demo(ro)],
          ],
          { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
        );
        r = { code: p.status, stdout: p.stdout, stderr: p.stderr };
      }
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `nor: the data directory ${ro} is not writable by this user (permission denied): nor keeps its store and archive there; make it writable for the user nor runs as, or choose another --data\n`,
      );
      expect(r.stderr).not.toContain("EACCES");
      // No banner, no site started, nothing written.
      expect(r.stdout).toBe("");
      expect(readdirSync(ro)).toEqual([]);
    },
    90_000,
  );
});
