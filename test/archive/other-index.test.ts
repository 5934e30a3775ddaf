import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { warcinfoRecord } from "../../src/store/archive/records.js";
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
 * the records newer than it the same way. Every file a store starts names the store in its
 * warcinfo (`isPartOf`), and a file another store started is never cut or removed, whether its
 * writer ended in order or was killed; a store's own file is cut back to its index as before.
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
      // Another store's own ids (counted ids would give both stores the same name).
      ids: randomIds,
      note: (text) => notes.push(text),
    });
    expect(b.recoveredBytes).toBe(0);
    await b.write(exchange("http://127.0.0.2/minutes", "<p>the other store's</p>"));
    await b.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(notes).toEqual([
      `1 archive file in ${t.archiveDir} was started by another store (${files[0]}): left as they are, never cut or removed here. A data directory used both with and without NOR_DATABASE_URL holds both stores' files: give each store a data directory of its own`,
    ]);

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

  it("P8: a file another store's killed night left (its writer dead, nothing of it in this index) is left whole, not removed as a torn file", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.write(exchange("http://127.0.0.2/two", "second"));
    const file = a.currentFile!;
    await a.close();
    const path = join(t.archiveDir, file);
    // Its writer killed: the claim left behind, naming a process that is gone.
    writeFileSync(`${path}.writer`, `999999999\n${hostname()}\nhost:999999999:dead\n`);
    // And the last record's index row never committed.
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/two").execute();
    const bytes = readFileSync(path);
    const notes: string[] = [];
    const b = await WarcArchive.open(t.archiveDir, {
      db: other.db,
      clock: new ManualClock(),
      // Another store's own ids (counted ids would give both stores the same name).
      ids: randomIds,
      note: (n) => notes.push(n),
    });
    await b.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(notes.join("\n")).toContain("started by another store");
    // The store it belongs to cuts its own record that never committed, as before.
    const again = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await again.close();
    expect(again.recoveredBytes).toBeGreaterThan(0);
    expect(statSync(path).size).toBeLessThan(bytes.length);
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    expect(decode((await readCapture(t.archiveDir, c)).body)).toBe("first");
    expect((await verifyArchive(t.archiveDir, t.store.db)).problems).toEqual([]);
  });

  it("P8: a store's own file holding records whose index rows never committed (a failed write, not a kill) is cut back to its index, silently, as a killed writer's is", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.write(exchange("http://127.0.0.2/two", "second"));
    await a.close();
    const path = join(t.archiveDir, listWarcFiles(t.archiveDir)[0]!);
    const size = statSync(path).size;
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/two").execute();
    const notes: string[] = [];
    const b = await WarcArchive.open(t.archiveDir, {
      ...t.archiveOptions,
      note: (n) => notes.push(n),
    });
    await b.close();
    expect(b.recoveredBytes).toBeGreaterThan(0);
    expect(statSync(path).size).toBe(size - b.recoveredBytes);
    expect(notes).toEqual([]);
    // Opened again: nothing more to cut, nothing said.
    const c = await WarcArchive.open(t.archiveDir, {
      ...t.archiveOptions,
      note: (n) => notes.push(n),
    });
    await c.close();
    expect(c.recoveredBytes).toBe(0);
    expect(notes).toEqual([]);
  });

  it("P8: a file from before files named their store keeps its whole records past the index (said), and loses only a torn one", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/one", "first"));
    await a.write(exchange("http://127.0.0.2/two", "second"));
    await a.close();
    const file = listWarcFiles(t.archiveDir)[0]!;
    const path = join(t.archiveDir, file);
    // Its warcinfo as files were written before: no isPartOf.
    const old = await warcinfoRecord(file, Date.UTC(2026, 10, 5), "<urn:uuid:0000>");
    const c1 = (await latestCapture(t.store.db, "http://127.0.0.2/one"))!;
    const infoEnd = Math.min(c1.offset, c1.requestOffset ?? c1.offset);
    const whole = readFileSync(path);
    const shift = old.length - infoEnd;
    writeFileSync(path, Buffer.concat([old, whole.subarray(infoEnd)]));
    await t.store.db
      .updateTable("captures")
      .set((eb) => ({
        offset: eb("offset", "+", shift),
        request_offset: eb("request_offset", "+", shift),
      }))
      .execute();
    await t.store.db.deleteFrom("captures").where("url", "=", "http://127.0.0.2/two").execute();
    const bytes = readFileSync(path);
    const notes: string[] = [];
    const b = await WarcArchive.open(t.archiveDir, {
      ...t.archiveOptions,
      note: (n) => notes.push(n),
    });
    await b.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(notes.join("\n")).toContain(
      `${path} holds whole records past what this store's index names`,
    );
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
