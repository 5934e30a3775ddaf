import type pg from "pg";

/**
 * Until each backend of `pids` waits for a lock (bounded), one of them for the advisory lock
 * `key` (a test's own) when given.
 */
export async function waiting(admin: pg.Client, pids: number[], _key?: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const r = await admin.query(
      `select count(*)::int as n from pg_stat_activity
       where pid = any($1) and wait_event_type = 'Lock'`,
      [pids],
    );
    if ((r.rows[0]?.n as number) === pids.length) return;
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error(`backends ${pids.join(", ")} did not come to wait for a lock`);
}
