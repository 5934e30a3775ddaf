import { pbkdf2, randomBytes } from "node:crypto";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { latestCapture } from "../../src/store/archive/captures.js";
import { INLINE_READ_BYTES, OpenFiles, readCapture } from "../../src/store/archive/read.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * A stored copy is read back whole whatever its size: a record of a page (up to
 * INLINE_READ_BYTES) in one synchronous read, a larger one through the libuv pool. Both read the
 * same bytes from the same place through the files kept open, and both say when a record was cut
 * short on disk instead of handing back part of it.
 */
describe("reading a stored copy back, small and large (P8)", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  const small = "<rss><channel><title>Agendas</title></channel></rss>";
  // Random bytes do not deflate: the record is larger than the inline limit on disk too.
  const large = randomBytes(INLINE_READ_BYTES + 40_000);

  it("P8: a small record and a large one read back byte for byte through the files kept open, all at once, twice", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/small", small, { at: 1_000 }));
    await a.write(exchange("http://127.0.0.2/large", large, { at: 2_000 }));
    await a.write(exchange("http://127.0.0.2/small2", `${small} 2`, { at: 3_000 }));
    await a.close();
    const s = await latestCapture(t.store.db, "http://127.0.0.2/small");
    const l = await latestCapture(t.store.db, "http://127.0.0.2/large");
    const s2 = await latestCapture(t.store.db, "http://127.0.0.2/small2");
    expect(s!.length).toBeLessThanOrEqual(INLINE_READ_BYTES);
    expect(l!.length).toBeGreaterThan(INLINE_READ_BYTES);
    const files = new OpenFiles();
    try {
      for (let round = 0; round < 2; round++) {
        const [bs, bl, bs2] = await Promise.all([
          readCapture(t.archiveDir, s!, files),
          readCapture(t.archiveDir, l!, files),
          readCapture(t.archiveDir, s2!, files),
        ]);
        expect(new TextDecoder().decode(bs!.body)).toBe(small);
        expect(Buffer.from(bl!.body).equals(large)).toBe(true);
        expect(new TextDecoder().decode(bs2!.body)).toBe(`${small} 2`);
      }
    } finally {
      await files.close();
    }
  });

  it("P8: a small record is read without the libuv pool (so a 304 costs no pool round trip); a large one waits for the pool", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/small", small, { at: 1_000 }));
    await a.write(exchange("http://127.0.0.2/large", large, { at: 2_000 }));
    await a.close();
    const s = await latestCapture(t.store.db, "http://127.0.0.2/small");
    const l = await latestCapture(t.store.db, "http://127.0.0.2/large");
    const files = new OpenFiles();
    try {
      // The file opened (through the pool) before the pool is filled.
      await readCapture(t.archiveDir, s!, files);
      // Every pool thread busy with a key derivation that takes far longer than a read.
      const threads = Number(process.env["UV_THREADPOOL_SIZE"] ?? "4");
      let derived = 0;
      const busy = Array.from(
        { length: threads },
        () =>
          new Promise<void>((resolve, reject) =>
            pbkdf2("pw", "salt", 400_000, 64, "sha512", (err) => {
              derived++;
              if (err) reject(err);
              else resolve();
            }),
          ),
      );
      const smallBack = await readCapture(t.archiveDir, s!, files);
      // Read while no pool thread was free: none of the derivations had ended.
      expect(derived).toBe(0);
      expect(new TextDecoder().decode(smallBack.body)).toBe(small);
      const largeBack = await readCapture(t.archiveDir, l!, files);
      // The large record's read had to wait for a pool thread.
      expect(derived).toBeGreaterThan(0);
      expect(Buffer.from(largeBack.body).equals(large)).toBe(true);
      await Promise.all(busy);
    } finally {
      await files.close();
    }
  });

  for (const which of ["small", "large"] as const) {
    it(`P8: a ${which} record cut short on disk is reported as cut, not read in part`, async () => {
      const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
      const url = `http://127.0.0.2/${which}`;
      await a.write(exchange(url, which === "small" ? small : large, { at: 1_000 }));
      await a.close();
      const c = await latestCapture(t.store.db, url);
      truncateSync(join(t.archiveDir, c!.file), c!.offset + Math.floor(c!.length / 2));
      const files = new OpenFiles();
      try {
        await expect(readCapture(t.archiveDir, c!, files)).rejects.toThrow(/cut short/);
      } finally {
        await files.close();
      }
    });
  }
});
