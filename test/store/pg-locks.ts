import type pg from "pg";

/**
 * Until each backend of `pids` waits for a lock, and one of them for the advisory lock `key`
 * (a test's own, a bigint) when given (bounded). A backend waiting for another lock only, as
 * kysely's migration lock (one for the whole database) while another worker of the suite
 * migrates a store of its own, has not come to where the test holds it yet.
 */
export async function waiting(admin: pg.Client, pids: number[], key?: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const r = await admin.query(
      `select
         (select count(*)::int from pg_stat_activity
          where pid = any($1) and wait_event_type = 'Lock') as n,
         (select count(*)::int from pg_locks
          where pid = any($1) and not granted and locktype = 'advisory'
            and classid = ($2::bigint >> 32)::oid and objid = ($2::bigint & 4294967295)::oid
            and objsubid = 1) as on_key`,
      [pids, key ?? "0"],
    );
    const row = r.rows[0] as { n: number; on_key: number } | undefined;
    if (row?.n === pids.length && (key === undefined || row.on_key > 0)) return;
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error(
    `backends ${pids.join(", ")} did not come to wait for a lock${key === undefined ? "" : `, one for ${key}`}`,
  );
}
