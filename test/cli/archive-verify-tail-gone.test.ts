/**
 * P8, docs/operations.md ("Backups"): `nor archive verify` with no archive where it looks (a
 * wrong --data, an archive moved away) says so once, naming the directory, exit 2: not one
 * MISMATCH per capture, which would have an operator believe the archive corrupt. A WARC file
 * the index names that is gone is one line for the file (as `nor reparse` says it), exit 1.
 */
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { runCli } from "../archive/support/run-cli.js";

const T0 = Date.UTC(2026, 10, 5, 8);

describe("nor archive verify: no archive, or a file gone from it (P8)", () => {
  let t: TempStore;
  let files: string[];
  beforeEach(async () => {
    t = await tempStore();
    // Two files: one archive opened, closed, opened again (each process starts its own file).
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/a", "<p>a</p>", { at: T0 }));
    await a.write(exchange("http://127.0.0.2/b", "<p>b</p>", { at: T0 + 1 }));
    await a.close();
    const b = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await b.write(exchange("http://127.0.0.2/c", "<p>c</p>", { at: T0 + 2 }));
    await b.close();
    files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(2);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: the archive directory gone (moved away): one error naming the directory, exit 2, no MISMATCH", async () => {
    renameSync(t.archiveDir, join(t.dataDir, "archive-moved"));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    const out = r.stdout.toString();
    expect(r.code, out + r.stderr).toBe(2);
    expect(out).not.toContain("MISMATCH");
    expect(out).not.toContain("matches no record");
    expect(r.stderr).toContain(`no archive at ${t.archiveDir}`);
    expect(r.stderr).toContain("--data");
  });

  it("P8: verifyArchive on a directory that is not there, the index naming copies: a configuration error", async () => {
    await expect(verifyArchive(join(t.dataDir, "elsewhere"), t.store.db)).rejects.toMatchObject({
      code: "E_CONFIG",
      message: expect.stringContaining(join(t.dataDir, "elsewhere")),
    });
  });

  it("P8: a WARC file the index names deleted: one line for the file saying it is gone, exit 1; the other file still checked", async () => {
    const [first, second] = files as [string, string];
    rmSync(join(t.archiveDir, first));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    const out = r.stdout.toString();
    expect(r.code, out + r.stderr).toBe(1);
    expect(out).not.toContain("matches no record");
    expect(out).not.toContain("MISMATCH");
    const lines = out.split("\n").filter((l) => l.includes(first));
    expect(lines).toEqual([
      `MISSING ${first}: the file is gone from the archive (moved or deleted), though the index names 2 stored copies in it (put it back from a backup if there is one)`,
    ]);
    expect(out).not.toContain(second);
    expect(out).toContain("1 file, ");
    expect(out).toContain("1 problem");
  });

  it("P8: the file put back: verify passes again", async () => {
    const [first] = files as [string];
    renameSync(join(t.archiveDir, first), join(t.dataDir, first));
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toMatchObject([
      { file: first, gone: true },
    ]);
    renameSync(join(t.dataDir, first), join(t.archiveDir, first));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code, r.stdout.toString()).toBe(0);
    expect(r.stdout.toString()).toContain("0 problems");
  });
});

describe("nor archive verify: a store no night has read into", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("no archive directory and nothing indexed: nothing to check, exit 0", async () => {
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code, r.stdout.toString() + r.stderr).toBe(0);
    expect(r.stdout.toString()).toContain("0 files, 0 records, 0 digests checked, 0 problems");
  });
});
