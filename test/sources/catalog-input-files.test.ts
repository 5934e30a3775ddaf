import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_CATALOG_BYTES } from "../../src/sources/catalog/read.js";
import { nor } from "../cli/cli-capture.js";
import { buildCli, runNorAsync } from "../cli/run-nor.js";

/**
 * A catalog path names a regular file of a catalog's size, or it is refused before it is
 * read, as a directory is: a device or FIFO would be read forever, by the check and by the
 * night's stamp of its files alike.
 */
describe.skipIf(process.platform === "win32")("a catalog path that is not a catalog file", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-catalog-input-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, "fifo.yaml");
  execFileSync("mkfifo", [fifo]);
  const notRegular = "is not a regular file (a device, FIFO or socket), not a catalog file";

  // A separate process each: before the fix these read (or waited to open) forever, and a
  // blocking read in this process would stop the whole test run rather than fail this test
  // (runNorAsync kills it after its timeout).
  it("`nor catalog check` refuses a device and a FIFO, exit 2", async () => {
    buildCli();
    for (const f of ["/dev/zero", fifo]) {
      const r = await runNorAsync(["catalog", "check", f]);
      expect(r.stdout).toBe(`${f}: ${notRegular}\n`);
      expect(r.code).toBe(2);
    }
  });

  it("`nor night --catalog` refuses them before anything is made or fetched, exit 2", async () => {
    buildCli();
    for (const [name, f] of [
      ["zero", "/dev/zero"],
      ["fifo", fifo],
    ] as const) {
      const data = join(dir, `data-${name}`);
      const r = await runNorAsync(["night", "--catalog", f, "--data", data]);
      expect(r.stderr).toContain(`${f}: ${notRegular}`);
      expect(r.code).toBe(2);
      expect(existsSync(data)).toBe(false);
    }
  });

  it("refuses a file larger than a catalog file may be, before reading it", async () => {
    // Comment lines only: read, it would pass as an empty catalog.
    const big = join(dir, "big.yaml");
    writeFileSync(big, Buffer.alloc(MAX_CATALOG_BYTES + 2, "#\n"));
    const r = await nor("catalog", "check", big);
    expect(r.stdout).toBe(
      `${big}: is 67,108,866 bytes, more than a catalog file may be (64 MiB); split it into several files\n`,
    );
    expect(r.code).toBe(2);
    rmSync(big);
    const small = join(dir, "small.yaml");
    writeFileSync(small, "governments: []\n");
    expect(await nor("catalog", "check", small)).toMatchObject({ code: 0 });
  });
});
