/**
 * One process at a time opens a night (which night, the catalog import) or imports a catalog
 * into a data directory where a night may run (`nor catalog import`, `nor start`): a lock file
 * in the data directory on SQLite, a PostgreSQL advisory lock on PostgreSQL (several machines).
 * Waits for a live holder, takes over a dead one's.
 */
import { NorError } from "../errors.js";
import { advisoryLock } from "../store/advisory-lock.js";
import type { Store } from "../store/db.js";
import { acquireNightLock } from "./night-lock.js";

/** How often, and how many times, a taken lock file is looked at again: a minute in all. */
const RETRY_MS = 100;
const RETRIES = 600;

export async function acquireOpeningLock(
  store: Pick<Store, "db" | "dialect">,
  dataDir: string,
): Promise<() => Promise<void>> {
  if (store.dialect === "postgres") return advisoryLock(store.db, 0x6e6f72);
  for (let i = 0; i < RETRIES; i++) {
    try {
      const release = acquireNightLock(dataDir);
      return async () => release();
    } catch (err) {
      if (!(err instanceof NorError) || !/another nor night/.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
  throw new NorError("E_STORE", `the night lock in ${dataDir} stayed taken for a minute`);
}
