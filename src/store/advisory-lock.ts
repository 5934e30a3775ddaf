import type { Db } from "./db.js";
import { sql } from "./kysely.js";

/**
 * A PostgreSQL session advisory lock held on one connection of the pool until released: the
 * night lock when the store is shared by several machines. Resolves once it is held.
 */
export function advisoryLock(db: Db, key: number): Promise<() => Promise<void>> {
  return new Promise((resolveHeld, rejectHeld) => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const done = db
      .connection()
      .execute(async (conn) => {
        await sql`select pg_advisory_lock(${key})`.execute(conn);
        resolveHeld(async () => {
          release();
          await done;
        });
        await released;
        await sql`select pg_advisory_unlock(${key})`.execute(conn);
      })
      .catch((err: unknown) => rejectHeld(err));
  });
}
