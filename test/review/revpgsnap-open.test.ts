/**
 * revpgsnap: openStore making a new PostgreSQL store from the migrations' snapshot, where the
 * connection is unusual: a schema whose name needs quotes, a search_path of several schemas
 * (the first missing, or another store in a later one), a role that may not create, serializable
 * transactions by default, and the session it leaves behind (lock_timeout is the transaction's).
 */
import { PostgresAdapter, sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Db,
  makePostgresFromSnapshot,
  openStore,
  type StoreLocation,
} from "../../src/store/db.js";
import { describePostgresSchema } from "../store/postgres-description.js";
import { postgresUrl, rawStore } from "../store/stores.js";

const base = postgresUrl;
const made: string[] = [];
const roles: string[] = [];
const tag = `${process.pid}_${Date.now().toString(36)}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

afterAll(async () => {
  if (!base) return;
  await admin(async (c) => {
    for (const s of made.splice(0))
      await c.query(`drop schema if exists "${s.replaceAll('"', '""')}" cascade`);
    for (const r of roles.splice(0)) await c.query(`drop role if exists ${r}`);
  });
});

/** A new schema named `name` (made: true) or only its name (false), dropped after. */
async function schema(name: string, make = true): Promise<string> {
  const full = `${name}_${tag}`;
  made.push(full);
  if (make) await admin((c) => c.query(`create schema "${full.replaceAll('"', '""')}"`));
  return full;
}

/** The URL of `base` with these connection options (`-c name=value`, spaces escaped). */
function withOptions(options: string, url = base as string): StoreLocation {
  const sep = url.includes("?") ? "&" : "?";
  return { kind: "postgres", url: `${url}${sep}options=${encodeURIComponent(options)}` };
}

/** The relations of each schema that holds one, by the schema's name. */
async function relationsBySchema(names: string[]): Promise<Record<string, number>> {
  return admin(async (c) => {
    const r = await c.query(
      `select n.nspname as s, count(c.oid)::int as n from pg_namespace n
       join pg_class c on c.relnamespace = n.oid where n.nspname = any($1) group by 1`,
      [names],
    );
    return Object.fromEntries(r.rows.map((row: { s: string; n: number }) => [row.s, row.n]));
  });
}

/**
 * The store in schema `name`, described as test/store/postgres-description.ts does; a name that
 * needs quotes taken out of it here (the description's own unqualifying meets it only inside
 * JSON's escapes).
 */
const described = async (name: string) => {
  const d = JSON.stringify(await admin((c) => describePostgresSchema(c, name)));
  return JSON.parse(d.split(`\\"${name.replaceAll('"', '""')}\\".`).join("S.")) as unknown;
};

let referenceOnce: Promise<unknown> | undefined;
/** A store every migration made, in a plain schema. */
function reference(): Promise<unknown> {
  referenceOnce ??= (async () => {
    const s = await schema("revpgsnap_ref");
    await (await openStore(withOptions(`-c search_path=${s}`), { bySnapshot: false })).close();
    return described(s);
  })();
  return referenceOnce;
}

describe.skipIf(!base)(
  "revpgsnap: a new PostgreSQL store made from the snapshot, odd connections",
  () => {
    it("P27: lock_timeout and search_path are the session's again after the making (set_config is the transaction's)", async () => {
      const s = await schema("revpgsnap_session");
      const loc = withOptions(`-c search_path=${s} -c lock_timeout=1234`);
      const db = rawStore(loc);
      try {
        expect(await makePostgresFromSnapshot(db as unknown as Db)).toBe(true);
        const r = await sql<{
          lt: string;
          sp: string;
        }>`select current_setting('lock_timeout') as lt, current_setting('search_path') as sp`.execute(
          db,
        );
        expect(r.rows[0]).toEqual({ lt: "1234ms", sp: s });
      } finally {
        await db.destroy();
      }
    });

    it("P27: a schema whose name needs quotes (upper case, ;, $) gets the store, and no other schema anything", async () => {
      const want = await reference();
      const s = await schema("Rev;Pg$Snap");
      const loc = withOptions(`-c search_path="${s}"`);
      await (await openStore(loc)).close();
      expect(await described(s)).toEqual(want);
      expect(await relationsBySchema(["public"])).toEqual({});
    });

    it("P27: a search_path whose first schema is missing makes the store in the next one, and nothing anywhere else", async () => {
      const want = await reference();
      const missing = await schema("revpgsnap_missing", false);
      const next = await schema("revpgsnap_next");
      await (await openStore(withOptions(`-c search_path=${missing},${next}`))).close();
      expect(await described(next)).toEqual(want);
      expect(await relationsBySchema([missing, "public"])).toEqual({});
    });

    it("P27: a search_path of a new schema then one holding a store makes the new store in the first and leaves the other as it was", async () => {
      const want = await reference();
      const older = await schema("revpgsnap_older");
      await (await openStore(withOptions(`-c search_path=${older}`))).close();
      const before = await described(older);
      const first = await schema("revpgsnap_first");
      await (await openStore(withOptions(`-c search_path=${first},${older}`))).close();
      expect(await described(first)).toEqual(want);
      expect(await described(older)).toEqual(before);
    });

    it("P27: a role that may not create in the schema: openStore fails as the migrator says, nothing made, no lock left held", async () => {
      const s = await schema("revpgsnap_ro");
      const role = `revpgsnap_ro_${tag}`;
      roles.push(role);
      await admin(async (c) => {
        await c.query(`create role ${role} login`);
        await c.query(`grant usage on schema "${s}" to ${role}`);
      });
      const u = new URL(base as string);
      u.username = role;
      const loc = withOptions(`-c search_path=${s}`, u.toString());
      await expect(openStore(loc)).rejects.toThrow(/permission denied/);
      expect(await relationsBySchema([s])).toEqual({});
      const held = await admin(
        async (c) =>
          (
            await c.query(
              `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
             where l.locktype = 'advisory' and a.usename = $1`,
              [role],
            )
          ).rows[0]?.n,
      );
      expect(held).toBe(0);
    });

    it("P27: openers of one new schema at once under serializable transactions by default all open the one store", async () => {
      const want = await reference();
      const s = await schema("revpgsnap_serial");
      const loc = withOptions(`-c search_path=${s} -c default_transaction_isolation=serializable`);
      const stores = await Promise.all([openStore(loc), openStore(loc), openStore(loc)]);
      for (const st of stores) await st.close();
      expect(await described(s)).toEqual(want);
    });
    it("P27: a search_path that names no schema there is (current_schema() null): openStore fails, nothing made in public", async () => {
      const missing = await schema("revpgsnap_none", false);
      const before = await relationsBySchema(["public"]);
      await expect(openStore(withOptions(`-c search_path=${missing}`))).rejects.toThrow();
      expect(await relationsBySchema(["public", missing])).toEqual(before);
    });

    it("P27: a command that only reads makes no store on a new schema, by the snapshot or otherwise", async () => {
      const s = await schema("revpgsnap_reads");
      await expect(
        openStore(withOptions(`-c search_path=${s}`), { readsOnly: true }),
      ).rejects.toThrow(/no store/);
      expect(await relationsBySchema([s])).toEqual({});
    });

    it("P27: the snapshot's making waits for kysely's own migration lock, taken by kysely's PostgresAdapter (the same lock id)", async () => {
      const s = await schema("revpgsnap_lockid");
      const loc = withOptions(`-c search_path=${s}`);
      const holder = rawStore(loc);
      const maker = rawStore(loc);
      let made: Promise<boolean> | undefined;
      try {
        await holder.connection().execute(async (c) => {
          await new PostgresAdapter().acquireMigrationLock(c, {} as never);
          const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(maker))
            .rows[0]?.pid as number;
          made = makePostgresFromSnapshot(maker as unknown as Db);
          let waited = false;
          for (let i = 0; i < 1000 && !waited; i++) {
            const r = await admin((a) =>
              a.query(
                `select count(*)::int as n from pg_stat_activity
                 where pid = $1 and wait_event_type = 'Lock' and wait_event = 'advisory'`,
                [pid],
              ),
            );
            waited = (r.rows[0]?.n as number) > 0;
            if (!waited) await new Promise((done) => setTimeout(done, 10));
          }
          expect(waited, "the making waited for kysely's lock").toBe(true);
          expect(await relationsBySchema([s])).toEqual({});
          await new PostgresAdapter().releaseMigrationLock(c, {} as never);
        });
        expect(await made).toBe(true);
      } finally {
        await made;
        await holder.destroy();
        await maker.destroy();
      }
    });
  },
);
