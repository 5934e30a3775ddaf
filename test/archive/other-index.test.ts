import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore, type Store } from "../../src/store/db.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * P8: an archive directory's files may be named by another index than the one opening them. An
 * outside tester ran nights on a data directory's SQLite store, then with NOR_DATABASE_URL set on
 * the same --data: the PostgreSQL index named nothing in the SQLite store's files, so opening
 * the archive took every one of them for a file a killed process left with nothing indexed and
 * deleted it, and the SQLite store's copies were lost. A restored older store would have cut
 * the records newer than it the same way. Only what a killed writer left past the index is cut
 * now; whole records past the index in a file whose writer ended in order are left, and said.
 */
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("P8: an archive file another index names is never cut or removed", () => {
  let t: TempStore;
  let otherDir: string;
  let other: Store;
  beforeEach(async () => {
    t = await tempStore();
    otherDir = mkdtempSync(join(tmpdir(), "nor-archive-other-"));
    // Another store (as PostgreSQL's would be beside the data directory's SQLite one).
    other = await openStore({ kind: "sqlite", dir: otherDir });
  });
  afterEach(async () => {
    await other.close();
    rmSync(otherDir, { recursive: true, force: true });
    await t.cleanup();
  });

  it("P8: the files of the directory's first store stay whole when another store's index opens the archive; that store's copies still read and verify", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/agendas", "<p>the agendas</p>"));
    await a.write(exchange("http://127.0.0.2/bids", "<p>the bids</p>"));
    await a.close();
    const files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(1);
    const path = join(t.archiveDir, files[0]!);
    const bytes = readFileSync(path);

    const notes: string[] = [];
    const b = await WarcArchive.open(t.archiveDir, {
      db: other.db,
      clock: new ManualClock(),
      ids: new CounterIds(),
      note: (text) => notes.push(text),
    });
    expect(b.recoveredBytes).toBe(0);
    await b.write(exchange("http://127.0.0.2/minutes", "<p>the other store's</p>"));
    await b.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`${path} holds whole records past what this store's index names`);
    expect(notes[0]).toContain("left as it is, not cut");
    expect(notes[0]).toContain("NOR_DATABASE_URL");

    // Back on the first store: its copies read, and the other store's file is left alone too.
    const again = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    expect(again.recoveredBytes).toBe(0);
    await again.close();
    expect(listWarcFiles(t.archiveDir)).toHaveLength(2);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/agendas"))!;
    expect(decode((await readCapture(t.archiveDir, c)).body)).toBe("<p>the agendas</p>");
    const o = (await latestCapture(other.db, "http://127.0.0.2/minutes"))!;
    expect(decode((await readCapture(t.archiveDir, o)).body)).toBe("<p>the other store's</p>");
    const report = await verifyArchive(t.archiveDir, t.store.db);
    expect(report.problems).toEqual([]);
  });

  it("P8: a store restored from a backup older than its archive keeps the newer records in the file, not cut back to its index", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.write(exchange("http://127.0.0.2/two", "second"));
    await a.close();
    const files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(1);
    const path = join(t.archiveDir, files[0]!);
    const bytes = readFileSync(path);
    // The store put back as it was before the second record: its index ends inside the file.
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/two").execute();

    const notes: string[] = [];
    const b = await WarcArchive.open(t.archiveDir, {
      ...t.archiveOptions,
      note: (n) => notes.push(n),
    });
    await b.close();
    expect(b.recoveredBytes).toBe(0);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`${path} holds whole records past what this store's index names`);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    expect(decode((await readCapture(t.archiveDir, c)).body)).toBe("first");
  });

  it("P8: a file a process left with only its warcinfo, or a warcinfo and a torn record, nothing indexed, is still removed", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.close();
    const file = listWarcFiles(t.archiveDir)[0]!;
    const path = join(t.archiveDir, file);
    const whole = readFileSync(path);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    // The warcinfo alone, and the warcinfo with half a record after it, nothing indexed.
    const infoEnd = Math.min(c.offset, c.requestOffset ?? c.offset);
    await t.store.db.deleteFrom("captures").execute();
    for (const bytes of [
      whole.subarray(0, infoEnd),
      Buffer.concat([whole.subarray(0, infoEnd), whole.subarray(c.offset, c.offset + 40)]),
    ]) {
      writeFileSync(path, bytes);
      const notes: string[] = [];
      const b = await WarcArchive.open(t.archiveDir, {
        ...t.archiveOptions,
        note: (n) => notes.push(n),
      });
      await b.close();
      expect(listWarcFiles(t.archiveDir)).not.toContain(file);
      expect(notes).toEqual([]);
    }
  });
});
