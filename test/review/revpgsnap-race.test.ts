/**
 * revpgsnap: postgres-snapshot.test.ts holds a making by the snapshot at a point of its script
 * by an advisory lock of its own (`key`), and waits (pg-locks.ts waiting) until the making
 * waits there before it goes on. The making first takes kysely's migration lock, one for the
 * whole database: while another worker of the suite migrates a store of its own, the making
 * waits on that lock instead, and a wait for "a lock" let the test go on too soon. Seen: "an
 * opener by the migrations … waits for it" failed (the making found kysely's tables the opener
 * had made meanwhile, and was refused) while another file made stores at the same time.
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, makePostgresFromSnapshot } from "../../src/store/db.js";
import { POSTGRES_SNAPSHOT } from "../../src/store/migrations/postgres-snapshot.js";
import { waiting } from "../store/pg-locks.js";
import { postgresFactory, postgresUrl, rawStore } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});
const KYSELY_LOCK = "3853314791062309107";

/** Whether backend `pid` waits for the advisory lock `key` (a bigint: its high half classid). */
async function waitsOn(admin: pg.Client, pid: number, key: string): Promise<boolean> {
  const r = await admin.query(
    `select count(*)::int as n from pg_locks where pid = $1 and not granted
     and locktype = 'advisory' and classid = ($2::bigint >> 32)::oid
     and objid = ($2::bigint & 4294967295)::oid and objsubid = 1`,
    [pid, key],
  );
  return (r.rows[0]?.n as number) > 0;
}

describe.skipIf(!factory)("revpgsnap: the snapshot tests' wait for their own lock", () => {
  it("P27: waiting(admin, [pid], key) returns only once the backend waits for the test's key, not while it waits for kysely's lock another worker holds", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const key = String(3_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
    const admin = new pg.Client({ connectionString: postgresUrl });
    const neighbour = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await neighbour.connect();
    const maker = rawStore(loc);
    let made: Promise<boolean> | undefined;
    try {
      await admin.query(`select pg_advisory_lock(${key})`);
      // Another worker migrating a store of its own.
      await neighbour.query(`select pg_advisory_lock(${KYSELY_LOCK})`);
      const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(maker))
        .rows[0]?.pid as number;
      const statements = [...POSTGRES_SNAPSHOT.statements, `select pg_advisory_xact_lock(${key})`];
      made = makePostgresFromSnapshot(maker as unknown as Db, {
        migrations: [...POSTGRES_SNAPSHOT.migrations],
        statements,
      });
      const waited = waiting(admin, [pid], key).then(
        () => waitsOn(admin, pid, key),
        () => false,
      );
      // The making waits for kysely's lock: the neighbour lets it go a while later.
      for (let i = 0; i < 1000 && !(await waitsOn(admin, pid, KYSELY_LOCK)); i++)
        await new Promise((done) => setTimeout(done, 10));
      for (let i = 0; i < 20; i++) await admin.query("select pg_sleep(0.01)");
      await neighbour.query(`select pg_advisory_unlock(${KYSELY_LOCK})`);
      expect(await waited, "waiting() returned while the making waited for kysely's lock").toBe(
        true,
      );
      await admin.query(`select pg_advisory_unlock(${key})`);
      expect(await made).toBe(true);
    } finally {
      // Both locks let go with their sessions: the making ends before its pool does.
      await admin.end();
      await neighbour.end();
      await made;
      await maker.destroy();
    }
  });
});
