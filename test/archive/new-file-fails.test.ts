import { randomBytes } from "node:crypto";
import { readdirSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { latestCapture } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { fdsUnder } from "./support/fds.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

const fds = fdsUnder;

type Proto = { datasync(): Promise<void> };

/**
 * P8: a new WARC file is started by writing its warcinfo record and syncing it. When that fails
 * (a full or failing disk), the file's handle is closed there and then, not left to the garbage
 * collector, and neither the file nor its claim stays behind; the writer starts another file
 * at the next write.
 */
describe("WarcArchive: a file that cannot be started (P8)", () => {
  let t: TempStore;
  let proto: Proto;
  let real: Proto["datasync"];
  /** Syncs made through any FileHandle fail while this is true. */
  let failing = false;

  beforeEach(async () => {
    t = await tempStore();
    const p = join(t.dataDir, "probe");
    writeFileSync(p, "");
    const probe = await open(p, "r");
    proto = Object.getPrototypeOf(probe) as Proto;
    await probe.close();
    real = proto.datasync;
    proto.datasync = function (this: unknown) {
      if (failing)
        return Promise.reject(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
      return real.call(this);
    };
  });
  afterEach(async () => {
    proto.datasync = real;
    failing = false;
    await t.cleanup();
  });

  it("P8: each failed start closes its file and removes it and its claim; the next write starts a file", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    failing = true;
    for (let i = 0; i < 5; i++) {
      await expect(a.write(exchange(`http://127.0.0.2/p/${i}`, `page ${i}`))).rejects.toThrow(
        /EIO/,
      );
    }
    expect(fds(t.archiveDir)).toBe(0);
    expect(readdirSync(t.archiveDir)).toEqual([]);
    failing = false;
    await a.write(exchange("http://127.0.0.2/after", "after"));
    await a.close();
    expect(fds(t.archiveDir)).toBe(0);
    expect(listWarcFiles(t.archiveDir)).toHaveLength(1);
    expect(readdirSync(t.archiveDir).filter((n) => n.endsWith(".writer"))).toEqual([]);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/after"))!;
    expect(new TextDecoder().decode((await readCapture(t.archiveDir, c)).body)).toBe("after");
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toEqual([]);
  });

  it("P8: after a rotation whose new file cannot be started, the file let go is never written to again", async () => {
    // Room for a few small pages in a file, not for the incompressible 8 kB one.
    const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, rotateBytes: 6_000 });
    await a.write(exchange("http://127.0.0.2/one", "one", { at: 1_000 }));
    failing = true;
    await expect(
      a.write(
        exchange("http://127.0.0.2/big.pdf", new Uint8Array(randomBytes(8_000)), { at: 2_000 }),
      ),
    ).rejects.toThrow(/EIO/);
    expect(fds(t.archiveDir)).toBe(0);
    failing = false;
    // Small enough for the file let go at the rotation: it goes into a new file instead.
    await a.write(exchange("http://127.0.0.2/two", "two", { at: 3_000 }));
    await a.close();
    expect(fds(t.archiveDir)).toBe(0);
    const files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(2);
    for (const [url, body] of [
      ["http://127.0.0.2/one", "one"],
      ["http://127.0.0.2/two", "two"],
    ] as const) {
      const c = (await latestCapture(t.store.db, url))!;
      expect(new TextDecoder().decode((await readCapture(t.archiveDir, c)).body)).toBe(body);
    }
    expect(await latestCapture(t.store.db, "http://127.0.0.2/big.pdf")).toBeUndefined();
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toEqual([]);
  });
});
