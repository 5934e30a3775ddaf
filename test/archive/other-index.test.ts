import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore, type Store } from "../../src/store/db.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * P8: what opening the archive may cut. An outside tester ran nights on a data directory's
 * SQLite store, then with NOR_DATABASE_URL set on the same --data: the PostgreSQL index named
 * nothing in the SQLite store's files, so opening the archive took each for a file a killed
 * process left with nothing indexed and deleted it. Two reviews found more ways to the same
 * loss: a store restored from a backup older than its archive, a file whose rows another process
 * was still committing, one flipped byte in a file's warcinfo. Only what is torn is cut now: a
 * record cut short at the end of a file (a kill while it was written), and a file holding
 * nothing but its warcinfo. Whole records past the index stay, whoever wrote them, and so does
 * data that does not read.
 */
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("P8: opening the archive cuts only what is torn", () => {
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

  /** Opens and closes the archive over `db` (default: the first store's), saying its notes. */
  async function reopen(db = t.store.db): Promise<{ cut: number; notes: string[] }> {
    const notes: string[] = [];
    const a = await WarcArchive.open(t.archiveDir, {
      db,
      clock: new ManualClock(),
      // Each store its own ids (counted ids would name both stores alike).
      ids: db === t.store.db ? t.archiveOptions.ids : randomIds,
      note: (n) => notes.push(n),
    });
    await a.close();
    return { cut: a.recoveredBytes, notes };
  }

  /** One file of the first store with two whole records, the second's index row then dropped. */
  async function secondNotIndexed(): Promise<{ path: string; bytes: Buffer }> {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.write(exchange("http://127.0.0.2/two", "second"));
    const file = a.currentFile!;
    await a.close();
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/two").execute();
    const path = join(t.archiveDir, file);
    return { path, bytes: readFileSync(path) };
  }

  it("P8: the files of the directory's first store stay whole when another store's index opens the archive; that store's copies still read and verify", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/agendas", "<p>the agendas</p>"));
    await a.write(exchange("http://127.0.0.2/bids", "<p>the bids</p>"));
    await a.close();
    const files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(1);
    const path = join(t.archiveDir, files[0]!);
    const bytes = readFileSync(path);

    const b = await WarcArchive.open(t.archiveDir, {
      db: other.db,
      clock: new ManualClock(),
      ids: randomIds,
    });
    await b.write(exchange("http://127.0.0.2/minutes", "<p>the other store's</p>"));
    await b.close();
    expect(b.recoveredBytes).toBe(0);
    expect(readFileSync(path).equals(bytes)).toBe(true);

    // Back on the first store: the other store's file is left alone too.
    expect(await reopen()).toEqual({ cut: 0, notes: [] });
    expect(listWarcFiles(t.archiveDir)).toHaveLength(2);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/agendas"))!;
    expect(decode((await readCapture(t.archiveDir, c)).body)).toBe("<p>the agendas</p>");
    const o = (await latestCapture(other.db, "http://127.0.0.2/minutes"))!;
    expect(decode((await readCapture(t.archiveDir, o)).body)).toBe("<p>the other store's</p>");
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toEqual([]);
  });

  it("P8: a file another store's killed night left (its writer dead, nothing of it in this index) keeps its whole records", async () => {
    const { path, bytes } = await secondNotIndexed();
    // Its writer killed: the claim left behind, naming a process that is gone.
    writeFileSync(`${path}.writer`, `999999999\n${hostname()}\nhost:999999999:dead\n`);
    expect((await reopen(other.db)).cut).toBe(0);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // Nor does its own store cut the record whose row never committed: it is whole.
    expect((await reopen()).cut).toBe(0);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toEqual([]);
  });

  it("P8: a store restored from a backup older than its archive keeps the newer records, in the file and in files of their own, silently, however often it opens", async () => {
    const { path, bytes } = await secondNotIndexed();
    // A later file the restored index knows nothing of.
    const later = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await later.write(exchange("http://127.0.0.2/three", "third"));
    const laterFile = join(t.archiveDir, later.currentFile!);
    await later.close();
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/three").execute();
    const laterBytes = readFileSync(laterFile);
    for (let i = 0; i < 3; i++) expect(await reopen()).toEqual({ cut: 0, notes: [] });
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readFileSync(laterFile).equals(laterBytes)).toBe(true);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    expect(decode((await readCapture(t.archiveDir, c)).body)).toBe("first");
  });

  it("P8: one flipped byte in a file's warcinfo, nothing of it indexed here: the file is left as it is, not removed as torn", async () => {
    const { path } = await secondNotIndexed();
    await t.store.db.deleteFrom("captures").execute();
    const bytes = Buffer.from(readFileSync(path));
    bytes[20] = (bytes[20] ?? 0) ^ 0xff;
    writeFileSync(path, bytes);
    expect((await reopen()).cut).toBe(0);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("P8: a torn record (or zeros) after the last indexed one is cut; a file of only its warcinfo, or a warcinfo and a torn record, nothing indexed, is removed", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.close();
    const file = listWarcFiles(t.archiveDir)[0]!;
    const path = join(t.archiveDir, file);
    const whole = readFileSync(path);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    // Half of a copy of the last record after the file's end: what a kill inside write() leaves.
    writeFileSync(path, Buffer.concat([whole, whole.subarray(c.offset, c.offset + 40)]));
    expect(await reopen()).toEqual({ cut: 40, notes: [] });
    expect(statSync(path).size).toBe(whole.length);
    // Zeros after the last record (what a power loss can leave of a write): cut as torn.
    writeFileSync(path, Buffer.concat([whole, Buffer.alloc(4096)]));
    expect(await reopen()).toEqual({ cut: 4096, notes: [] });
    expect(statSync(path).size).toBe(whole.length);
    // The warcinfo alone, and the warcinfo with half a record after it, nothing indexed.
    const infoEnd = Math.min(c.offset, c.requestOffset ?? c.offset);
    await t.store.db.deleteFrom("captures").execute();
    for (const bytes of [
      whole.subarray(0, infoEnd),
      Buffer.alloc(512), // zeros only: a file its first write never reached (a power loss)
      Buffer.concat([whole.subarray(0, infoEnd), whole.subarray(c.offset, c.offset + 40)]),
    ]) {
      writeFileSync(path, bytes);
      expect((await reopen()).notes).toEqual([]);
      expect(listWarcFiles(t.archiveDir)).not.toContain(file);
    }
  });
});
