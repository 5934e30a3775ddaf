import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OpenFiles } from "../../src/store/archive/read.js";
import { fdsUnder } from "./support/fds.js";

const dir = mkdtempSync(join(tmpdir(), "nor-open-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fds = () => fdsUnder(dir);

/**
 * P8: the copies behind a night's 304s are read back through files kept open (read.ts,
 * OpenFiles): the same bytes as opening each time, however many reads run at once and however
 * few files may stay open; a read in flight is never cut by another's eviction; nothing stays
 * open after close.
 */
describe("OpenFiles: WARC files kept open between reads of the copies (P8)", () => {
  it("P8: reads give every file's bytes at their offsets, concurrently, with a bound of 2 open files; close lets every file go", async () => {
    const paths = [0, 1, 2, 3].map((i) => {
      const p = join(dir, `f${i}.warc.gz`);
      writeFileSync(p, Buffer.from(Array.from({ length: 256 }, (_, b) => (b + i) % 256)));
      return p;
    });
    const files = new OpenFiles(2);
    const reads = Array.from({ length: 60 }, async (_, k) => {
      const i = k % 4;
      const offset = (k * 7) % 200;
      const buf = new Uint8Array(16);
      const n = await files.read(paths[i] as string, buf, offset);
      expect(n).toBe(16);
      expect([...buf]).toEqual(Array.from({ length: 16 }, (_, b) => (offset + b + i) % 256));
    });
    await Promise.all(reads);
    // The files let go are closed a moment later (no read was using them).
    for (let i = 0; i < 1000 && fds() > 2; i++) await new Promise((r) => setImmediate(r));
    expect(fds()).toBeLessThanOrEqual(2);
    await files.close();
    expect(fds()).toBe(0);
    // A file that is not there fails its read, and is not kept.
    await expect(files.read(join(dir, "gone.warc.gz"), new Uint8Array(1), 0)).rejects.toThrow();
    await files.close();
    expect(fds()).toBe(0);
  });
});
