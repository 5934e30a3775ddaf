import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { sqliteFactory } from "./stores.js";

/**
 * `nor night --workers` on SQLite: a worker frozen (SIGSTOP) in the middle of a write holds the
 * store's write lock; another process's next write found it held past SQLite's busy wait (5 s)
 * and its command exited 1 with "database is locked", though the night went on and finished.
 * Now the write waits for the lock, saying what it waits on, and gives up only after
 * STORE_LOCK_WAIT_MS with the store's error (exit 1) saying why. The frozen process here is a
 * connection of the test's own holding `begin immediate`.
 */
const factory = sqliteFactory();
afterAll(() => factory.cleanup());

const T0 = Date.parse("2026-11-05T06:00:00Z");
function intent(url: string): SendIntent {
  const u = new URL(url);
  return {
    night: "2026-11-05",
    key: `GET ${url}`,
    method: "GET",
    url,
    site: "a.gov",
    origin: u.origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
  };
}

describe("a SQLite store whose write lock another process holds", () => {
  it("P27: a write waits for the lock a frozen process holds, says what it waits on, and goes through once the lock is let go", async () => {
    const loc = await factory.fresh();
    if (loc.kind !== "sqlite") throw new Error(loc.kind);
    const notes: string[] = [];
    let frozen: Sqlite.Database | undefined;
    const store = await openStore(loc, {
      onLockWait: (note) => {
        notes.push(note);
        // The frozen process goes on (SIGCONT) and commits.
        frozen?.exec("commit");
      },
    });
    try {
      frozen = new Sqlite(join(loc.dir, "nor.db"));
      frozen.exec("begin immediate");
      const a = await new SqlJournal(store.db).admit(intent("https://www.a.gov/1"), "me:1:x", T0);
      expect(a.kind).toBe("go");
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(
        /waiting for the store's write lock at .*nor\.db, held by another process/,
      );
    } finally {
      frozen?.close();
      await store.close();
    }
  });

  it("P27: a prepared write run straight on the store's connection (its own transaction) waits for the lock too, and is written once, not failed as 'database is locked'", async () => {
    const loc = await factory.fresh();
    if (loc.kind !== "sqlite") throw new Error(loc.kind);
    const notes: string[] = [];
    let frozen: Sqlite.Database | undefined;
    const store = await openStore(loc, {
      onLockWait: (note) => {
        notes.push(note);
        frozen?.exec("commit");
      },
    });
    const insert = prepared((db, $: Placeholder<{ id: string }>) =>
      db.insertInto("console_sessions").values({
        id_hash: $("id"),
        csrf_token: "t",
        created_at: "2026-11-05T06:00:00.000Z",
        expires_at: "2026-11-05T18:00:00.000Z",
      }),
    );
    try {
      frozen = new Sqlite(join(loc.dir, "nor.db"));
      frozen.exec("begin immediate");
      await insert.run(store.db, { id: "a" });
      expect(notes).toHaveLength(1);
      const rows = await store.db.selectFrom("console_sessions").select("id_hash").execute();
      expect(rows).toEqual([{ id_hash: "a" }]);
    } finally {
      frozen?.close();
      await store.close();
    }
  });

  it("P27: the wait's bound holds for the writes queued behind one that gave up: they and a group commit's batch fail as E_STORE with it, not each after a wait of its own nor run again one by one; the next wait, once a write got through, is bounded anew", async () => {
    const loc = await factory.fresh();
    if (loc.kind !== "sqlite") throw new Error(loc.kind);
    const notes: string[] = [];
    // Past the 5 s after which a wait is said, so that each wait of its own says so once.
    const store = await openStore(loc, { lockWaitMs: 7_000, onLockWait: (n) => notes.push(n) });
    const frozen = new Sqlite(join(loc.dir, "nor.db"));
    try {
      frozen.exec("begin immediate");
      const journal = new SqlJournal(store.db);
      const failed = (p: Promise<unknown>) =>
        p.then(
          () => undefined,
          (e: unknown) => e,
        );
      // A write of its own, and behind it three admissions in one turn: one batch, whose
      // transaction cannot begin.
      const errs = await Promise.all([
        failed(
          store.db
            .insertInto("console_sessions")
            .values({ id_hash: "x", csrf_token: "t", created_at: "2026", expires_at: "2027" })
            .execute(),
        ),
        ...[1, 2, 3].map((i) =>
          failed(journal.admit(intent(`https://www.a.gov/${i}`), "me:1:x", T0)),
        ),
      ]);
      for (const err of errs) expect(err).toMatchObject({ code: "E_STORE" });
      // One wait, said once: the first write's. The batch behind it found the lock still held
      // at its first try and gave up with it, its writes failing together, none run again alone.
      expect(notes).toHaveLength(1);
      expect(journal.group.stats.alone).toBe(0);

      // The other process goes on: the next write gets through, and a later wait is a new one.
      frozen.exec("commit");
      await store.db
        .insertInto("console_sessions")
        .values({ id_hash: "a", csrf_token: "t", created_at: "2026", expires_at: "2027" })
        .execute();
      frozen.exec("begin immediate");
      const later = store.db
        .insertInto("console_sessions")
        .values({ id_hash: "b", csrf_token: "t", created_at: "2026", expires_at: "2027" })
        .execute();
      setTimeout(() => frozen.exec("commit"), 300);
      await later;
      const rows = await store.db.selectFrom("console_sessions").select("id_hash").execute();
      expect(rows.map((r) => r.id_hash).sort()).toEqual(["a", "b"]);
    } finally {
      if (frozen.inTransaction) frozen.exec("rollback");
      frozen.close();
      await store.close();
    }
  }, 90_000);

  it("P27: a lock held past the wait's bound fails as the store's error (E_STORE, exit 1) saying why, not as SQLite's 'database is locked'", async () => {
    const loc = await factory.fresh();
    if (loc.kind !== "sqlite") throw new Error(loc.kind);
    const store = await openStore(loc, { lockWaitMs: 1 });
    const frozen = new Sqlite(join(loc.dir, "nor.db"));
    try {
      frozen.exec("begin immediate");
      const err = await new SqlJournal(store.db)
        .admit(intent("https://www.a.gov/1"), "me:1:x", T0)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(NorError);
      expect(err).toMatchObject({ code: "E_STORE" });
      expect((err as Error).message).toMatch(
        /stayed locked by another process .*gives up \(exit 1\)/,
      );
    } finally {
      frozen.close();
      await store.close();
    }
  });
});
