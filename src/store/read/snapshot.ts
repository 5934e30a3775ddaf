/**
 * One consistent snapshot for a page's reads. A page that shows a count beside the list it
 * counts (/new: its counts and its records; a search: its total and its page of results) reads
 * both from the same committed state, so a night's commit between the two statements cannot
 * make them disagree. Without it each statement may take a reader of its own (the web's read
 * pool, the PostgreSQL pool), each with its own snapshot.
 *
 * - SQLite: one connection held for the reads, in a deferred read transaction (`begin`, not
 *   `begin immediate`: it takes no write lock, so a night goes on writing beside it); the
 *   snapshot is fixed at its first read (WAL) and let go at its end. A reader of the web's pool
 *   is held for those reads only, so the pool's other readers serve other pages meanwhile.
 * - PostgreSQL: one transaction, REPEATABLE READ and READ ONLY: its snapshot is fixed at its
 *   first statement, on one connection of the pool.
 *
 * Called inside one (a page's loader that calls another's), it runs on that snapshot.
 */
import type { Db } from "../db.js";
import { dialectOf } from "../dialect-of.js";
import { sql } from "../kysely.js";

/** The handles given to a snapshot's reads: a nested call reads through the same one. */
const inSnapshot = new WeakSet<object>();

export async function oneSnapshot<T>(db: Db, read: (db: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction || inSnapshot.has(db)) return read(db);
  if (dialectOf(db) === "postgres") {
    return db
      .transaction()
      .setIsolationLevel("repeatable read")
      .setAccessMode("read only")
      .execute(async (tx) => {
        inSnapshot.add(tx);
        return read(tx);
      });
  }
  return db.connection().execute(async (conn) => {
    inSnapshot.add(conn);
    // Whichever step fails (the begin's answer, a read, the commit's answer), the reader goes
    // back to its pool outside any transaction: one left in its snapshot would show every later
    // page that old state, refuse every later snapshot ('cannot start a transaction within a
    // transaction'), and keep the WAL from being checkpointed past it. A rollback with no
    // transaction open only fails, and that failure is not the page's.
    try {
      await sql`begin`.execute(conn);
      const out = await read(conn);
      await sql`commit`.execute(conn);
      return out;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}
