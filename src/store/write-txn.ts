import type { Transaction } from "kysely";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { sql } from "./kysely.js";
import type { Database } from "./schema/index.js";

export type Tx = Transaction<Database> | Db;

/**
 * A transaction that writes, serialised against every other writer of the store from the
 * start: `BEGIN IMMEDIATE` on SQLite (several processes on one file take the write lock before
 * reading, so what they read cannot change before they write), an ordinary transaction on
 * PostgreSQL, where the caller locks the rows it decides on (`for update`).
 */
export async function writeTxn<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (dialectOf(db) === "postgres") return db.transaction().execute(fn);
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const out = await fn(conn);
      await sql`commit`.execute(conn);
      return out;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}
