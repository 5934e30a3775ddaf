import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

  it("P8: a batch's capture rows share a commit with the journal's writes queued beside them, and each write resolves with its row committed", async () => {
    const group = new GroupCommit(t.store.db);
    const run = group.run.bind(group);
    let asked = 0;
    group.run = (fn) => {
      asked++;
      return run(fn);
    };
    const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, group });
    const other = await openStore({ kind: "sqlite", dir: t.dataDir });
    // A journal write holds the group's transaction open: what arrives meanwhile queues.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    try {
      const blocker = group.run(() => gate);
      const before = { ...group.stats };
      const robots = new SqlRobotsCache(t.store.db, group).put({
        origin: "http://127.0.0.3",
        fetchedAt: 2_000,
        state: "allow-all",
        status: 404,
      });
      const url = "http://127.0.0.3/p/1";
      const wrote = a.write(exchange(url, "body 1", { at: 2_000 })).then(async () => {
        // Resolved: committed, so another connection sees the row, and the bytes read back.
        const row = await latestCapture(other.db, url);
        expect(row).toBeDefined();
        const back = await readCapture(t.archiveDir, row!);
        expect(new TextDecoder().decode(back.body)).toBe("body 1");
      });
      // The archive's record is synced, then its row asks the group (the blocker, the
      // robots.txt answer, the capture row: three).
      await vi.waitFor(() => expect(asked).toBe(3), { timeout: 5_000, interval: 5 });
      expect(await latestCapture(other.db, url)).toBeUndefined();
      release();
      await Promise.all([blocker, robots, wrote]);
      // The blocker alone, then the robots.txt answer and the capture row in one transaction.
      expect(group.stats.batches - before.batches).toBe(2);
      expect(group.stats.writes - before.writes).toBe(3);
      expect((await new SqlRobotsCache(other.db).get("http://127.0.0.3"))?.state).toBe("allow-all");

      // Writes arriving together still go as one archive batch; each resolves committed.
      const written = capturesWritten(t.store.db);
      const urls = Array.from({ length: 6 }, (_, i) => `http://127.0.0.4/p/${i}`);
      await Promise.all(
        urls.map((u, i) =>
          a.write(exchange(u, `body ${i}`, { at: 3_000 + i })).then(async () => {
            expect(await latestCapture(other.db, u)).toBeDefined();
          }),
        ),
      );
      // The validators' remembered lookups see every insert of captures through the store.
      expect(capturesWritten(t.store.db)).toBeGreaterThan(written);
    } finally {
      release();
      await other.close();
      await a.close();
    }
  });

  it("P8: without a group the rows commit on their own, as before (nor discover, nor archive)", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    try {
      await a.write(exchange("http://127.0.0.2/alone", "alone", { at: 1_000 }));
      expect(await latestCapture(t.store.db, "http://127.0.0.2/alone")).toBeDefined();
    } finally {
      await a.close();
    }
  });
});
