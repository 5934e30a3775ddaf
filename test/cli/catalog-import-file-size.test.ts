import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticCatalog } from "../../scripts/generate-catalog.js";
import { storeWriteRefused } from "../../src/store/disk-full.js";
import { buildCli, norUnderFileSizeLimit } from "./run-nor.js";

/**
 * An outside tester's `(ulimit -f 200; nor catalog import BIG.yaml --data /tmp/x)` ended with a
 * bare `nor: disk I/O error` (exit 1) naming no file. A write the file system refuses (past a
 * file-size limit, SQLite's SQLITE_IOERR_WRITE; a full disk, SQLITE_FULL) is said with the
 * store's file and what to mend, exit 2 as a night stops for a full disk (src/store/disk-full.ts).
 */

describe("a store file the file system will not let grow", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-fsize-"));
  // 1,000 sources make a store of about 1.3 MB, well past either limit below in 512-byte
  // blocks (dash's `ulimit -f`) or 1024-byte ones (bash's); 10 sources, a store of its
  // migrations only (about 370 kB), still past the second. A file is read and checked before
  // the store is opened (importCatalogFiles): a smaller one only spends less CPU before then.
  const big = join(dir, "big.yaml");
  const small = join(dir, "small.yaml");
  beforeAll(() => {
    buildCli();
    writeFileSync(big, syntheticCatalog(1000));
    writeFileSync(small, syntheticCatalog(10));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const said = (file: string) =>
    `nor: ${file} could not be written (SQLite: disk I/O error): the file system refused the write, as it does past a file-size limit (ulimit -f) or on a full or failing disk; raise the limit or make room, then run the command again\n`;

  it("nor catalog import past a file-size limit names the store's file, exit 2", async () => {
    const data = join(dir, "import");
    const r = await norUnderFileSizeLimit(800, ["catalog", "import", big, "--data", data]);
    expect(r.stderr).toBe(said(join(data, "nor.db")));
    expect(r.code).toBe(2);
  }, 130_000);

  it("so does one that cannot even make the store: the write's error, not the rollback's after it", async () => {
    const data = join(dir, "make");
    const r = await norUnderFileSizeLimit(100, ["catalog", "import", small, "--data", data]);
    expect(r.stderr).toBe(said(join(data, "nor.db")));
    expect(r.stderr).not.toContain("cannot rollback");
    expect(r.code).toBe(2);
    expect(existsSync(join(data, "nor.db"))).toBe(true);
  }, 130_000);

  it("the codes said so: a refused write, a full disk, on the error or its causes", () => {
    const sqlite = (code: string) => Object.assign(new Error(code), { code });
    expect(storeWriteRefused(sqlite("SQLITE_IOERR_WRITE"))).toBe("refused");
    expect(storeWriteRefused(new Error("x", { cause: sqlite("EFBIG") }))).toBe("refused");
    expect(storeWriteRefused(sqlite("SQLITE_FULL"))).toBe("full");
    expect(storeWriteRefused(sqlite("ENOSPC"))).toBe("full");
    expect(storeWriteRefused(sqlite("SQLITE_IOERR_READ"))).toBeUndefined();
    expect(storeWriteRefused(sqlite("SQLITE_BUSY"))).toBeUndefined();
  });
});
