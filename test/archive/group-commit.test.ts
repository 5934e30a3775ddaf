import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capturesWritten, latestCapture } from "../../src/store/archive/captures.js";
import { readCapture } from "../../src/store/archive/read.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore } from "../../src/store/db.js";
import { GroupCommit } from "../../src/store/group-commit.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * `nor night` gives the archive the journal's group commit: the capture rows of an archive
 * batch join the journal's next transaction instead of committing (and syncing) alone. The
 * promises stay: a record's bytes are on disk before its row is inserted, and a write resolves
 * only once its row is committed.
 */
describe("the archive's capture rows in the journal's group commit (P8)", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: a batch's capture rows join the journal's writes queued beside them in one commit, only after the batch's records are synced, and each write resolves with its row committed", async () => {
    const group = new GroupCommit(t.store.db);
    const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, group });
    const other = await openStore({ kind: "sqlite", dir: t.dataDir });
    // Count the archive's fdatasyncs (the first write opens its file, whose handle shows the
    // prototype).
    await a.write(exchange("http://127.0.0.2/first", "first", { at: 1_000 }));
    // (A handle opened for its prototype alone, and closed at once: one left to the garbage
    // collector is closed there, with a warning.)
    const probe = await (await import("node:fs/promises")).open(
      join(t.archiveDir, a.currentFile!),
      "r",
    );
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const realSync = proto.datasync;
    let syncs = 0;
    proto.datasync = async function (this: unknown) {
      await realSync.call(this);
      syncs++;
    };
    // When the archive asks the group for its rows' insert, a journal write is queued in the
    // same turn (as another lane's admission would be): the two go in one transaction.
    const run = group.run.bind(group);
    const url = "http://127.0.0.3/p/1";
    let asked: number | undefined;
    let robots: Promise<void> | undefined;
    group.run = (fn) => {
      const p = run(fn);
      if (asked === undefined) {
        asked = syncs;
        robots = new SqlRobotsCache(t.store.db, group).put({
          origin: "http://127.0.0.3",
          fetchedAt: 2_000,
          state: "allow-all",
          status: 404,
        });
      }
      return p;
    };
    try {
      const syncsBefore = syncs;
      const before = { ...group.stats };
      await a.write(exchange(url, "body 1", { at: 2_000 }));
      // Resolved: committed, so another connection sees the row, and the bytes read back.
      const row = await latestCapture(other.db, url);
      expect(row).toBeDefined();
      const back = await readCapture(t.archiveDir, row!);
      expect(new TextDecoder().decode(back.body)).toBe("body 1");
      await robots;
      // The record was synced before its row was asked for.
      expect(asked).toBe(syncsBefore + 1);
      // One transaction for the capture row and the robots.txt answer.
      expect(group.stats.batches - before.batches).toBe(1);
      expect(group.stats.writes - before.writes).toBe(2);
      expect((await new SqlRobotsCache(other.db).get("http://127.0.0.3"))?.state).toBe("allow-all");

      // Writes arriving together: fewer archive batches (each one group write) than writes,
      // and each write resolves with its row committed.
      group.run = run;
      const mid = { ...group.stats };
      const written = capturesWritten(t.store.db);
      const urls = Array.from({ length: 6 }, (_, i) => `http://127.0.0.4/p/${i}`);
      await Promise.all(
        urls.map((u, i) =>
          a.write(exchange(u, `body ${i}`, { at: 3_000 + i })).then(async () => {
            expect(await latestCapture(other.db, u)).toBeDefined();
          }),
        ),
      );
      const batches = group.stats.writes - mid.writes;
      expect(batches).toBeGreaterThan(0);
      expect(batches).toBeLessThan(urls.length);
      // The validators' remembered lookups see every insert of captures through the store.
      expect(capturesWritten(t.store.db)).toBe(written + batches);
    } finally {
      proto.datasync = realSync;
      group.run = run;
      await other.close();
      await a.close();
    }
  });

  it("P8: a group commit over another store is refused: the index is read where it is written", async () => {
    const elsewhere = await tempStore();
    try {
      await expect(
        WarcArchive.open(t.archiveDir, {
          ...t.archiveOptions,
          group: new GroupCommit(elsewhere.store.db),
        }),
      ).rejects.toThrow(/over another store/);
    } finally {
      await elsewhere.cleanup();
    }
  });

  it("P8: without a group (nor discover) a write still resolves with its row committed", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const other = await openStore({ kind: "sqlite", dir: t.dataDir });
    try {
      await a.write(exchange("http://127.0.0.2/alone", "alone", { at: 1_000 }));
      expect(await latestCapture(other.db, "http://127.0.0.2/alone")).toBeDefined();
    } finally {
      await other.close();
      await a.close();
    }
  });
});
