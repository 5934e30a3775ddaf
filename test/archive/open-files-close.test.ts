import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OpenFiles } from "../../src/store/archive/read.js";
import { fdsUnder } from "./support/fds.js";

const dir = mkdtempSync(join(tmpdir(), "nor-open-files-close-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fds = () => fdsUnder(dir);

const file = (name: string) => {
  const p = join(dir, name);
  writeFileSync(p, Buffer.from(Array.from({ length: 64 }, (_, b) => b)));
  return p;
};

/**
 * P8: the files behind the copies are let go when their owner closes them (the night's end,
 * `nor discover`): a close resolves once every file is closed, a read still under way included,
 * and a read that comes after the close (a worker still finishing when another one's failure
 * ended the night) keeps no file open behind it.
 */
describe("OpenFiles: nothing left open after close (P8)", () => {
  it("P8: close resolves once the file a read is still using is closed", async () => {
    const p = file("a.warc.gz");
    const files = new OpenFiles(2);
    await files.read(p, new Uint8Array(8), 0); // the file is open and kept
    const reading = files.read(p, new Uint8Array(8), 8);
    await files.close();
    expect(fds()).toBe(0);
    expect(await reading).toBe(8);
    expect(fds()).toBe(0);
  });

  it("P8: a read after close gives the bytes and keeps no file open", async () => {
    const p = file("b.warc.gz");
    const files = new OpenFiles(2);
    await files.close();
    const buf = new Uint8Array(4);
    expect(await files.read(p, buf, 4)).toBe(4);
    expect([...buf]).toEqual([4, 5, 6, 7]);
    expect(fds()).toBe(0);
    await files.close();
    expect(fds()).toBe(0);
  });
});
