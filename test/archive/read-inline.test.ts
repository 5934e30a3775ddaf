import { randomBytes } from "node:crypto";
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

  it("P8: a small record and a large one read back byte for byte through the files kept open, in any order and at once", async () => {
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
