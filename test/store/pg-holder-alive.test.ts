import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { Admitted, SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { HOLDER_ALIVE_CLASS, HolderLiveness, holderKey } from "../../src/store/holder-liveness.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A worker on another machine frozen (SIGSTOP) in the middle of a slow body: its request's lease
 * (REQUEST_LEASE_MS from the start) runs out while its connection to the site is still open. Only
 * the lease told of another host's holder, so the site was taken over and asked again beside it
 * (P9), with no gap after its end (P10). Now its process holds a liveness lock on a connection of
 * its own (holder-liveness.ts), kept up by its kernel while it is frozen: the site waits while
 * the lock is held, and is taken over once its session ends (killed, its machine gone).
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
/** Holders of other machines (another host name than this one's). */
const FROZEN = "machine-a:101:aaaa";
const ME = "machine-b:202:bbbb";

function intent(url: string): SendIntent {
  const u = new URL(url);
  return {
    night: NIGHT,
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

/** Admits `url` for ME from `at`, following waits (a bounded number): the last answer. */
async function admitFollowing(j: SqlJournal, url: string, at: number): Promise<Admitted> {
  let now = at;
  let a = await j.admit(intent(url), ME, now);
  for (let i = 0; i < 4 && a.kind === "wait"; i++) {
    now = Math.max(a.until, now + 1);
    a = await j.admit(intent(url), ME, now);
  }
  return a;
}

describe.skipIf(!factory)("another machine's holder frozen past its lease (PostgreSQL)", () => {
  it("P9, P10: while its liveness lock is held, its site waits past the lease's end (nothing marked interrupted); once its session ends, the site is taken over with the gap from then", async () => {
    const loc = await (factory as NonNullable<typeof factory>).migrated();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const store = await openStore(loc);
    // Machine A's process: its liveness connection, as the product takes it.
    const alive = new HolderLiveness(loc.url);
    try {
      await alive.hold(FROZEN);
      const j = new SqlJournal(store.db);
      const a = await j.admit(intent("https://www.a.gov/slow"), FROZEN, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      // A is frozen mid-body; its lease runs out. B must not send beside it.
      const past = T0 + REQUEST_LEASE_MS + 1;
      for (const at of [past, past + 60_000, past + 10 * 60 * 60_000]) {
        expect(await j.admit(intent("https://www.a.gov/next"), ME, at)).toEqual({
          kind: "wait",
          until: at + 250,
          why: "in flight",
        });
      }
      // Nor does a night's start or end take its row for a dead one's.
      expect(await j.sweep(past + 60_000)).toBe(0);
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.map((r) => r.outcome)).toEqual(["in-flight"]);
      // A is killed: its session ends, and with it the lock.
      await alive.close();
      const later = past + 11 * 60 * 60_000;
      const b = await admitFollowing(j, "https://www.a.gov/next", later);
      expect(b).toMatchObject({ kind: "go" });
      // Its row is interrupted, and B's start keeps the gap from when A was found gone (P10).
      if (b.kind !== "go") throw new Error(b.kind);
      expect(b.startedAt).toBeGreaterThanOrEqual(later + 2000);
      const after = await new SqlRequestLog(store.db).query({});
      expect(after.find((r) => r.url.endsWith("/slow"))?.outcome).toBe("interrupted");
    } finally {
      await alive.close();
      await store.close();
    }
  });

  it("P9: a liveness session the server ends (pg_terminate_backend: its machine gone, reaped by keepalive) lets its site be taken over; the sweep marks its row then, not before", async () => {
    const loc = await (factory as NonNullable<typeof factory>).migrated();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const store = await openStore(loc);
    const other = new pg.Client({ connectionString: loc.url });
    await other.connect();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      // The lock as another machine's process takes it: its own session, class and key.
      await other.query("select pg_advisory_lock_shared($1::int4, $2::int4)", [
        HOLDER_ALIVE_CLASS,
        holderKey(FROZEN),
      ]);
      const pid = Number((await other.query("select pg_backend_pid() as p")).rows[0].p);
      const j = new SqlJournal(store.db);
      const a = await j.admit(intent("https://www.a.gov/slow"), FROZEN, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      const past = T0 + REQUEST_LEASE_MS + 1;
      expect(await j.sweep(past)).toBe(0);
      expect(await j.admit(intent("https://www.a.gov/next"), ME, past)).toMatchObject({
        kind: "wait",
        why: "in flight",
      });
      other.on("error", () => {});
      await admin.query("select pg_terminate_backend($1)", [pid]);
      // The server lets its locks go once the backend has exited (bounded wait).
      for (let i = 0; i < 100; i++) {
        const held = await admin.query(
          "select 1 from pg_locks where locktype = 'advisory' and pid = $1",
          [pid],
        );
        if (held.rowCount === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await j.sweep(past + 1)).toBe(1);
      expect(await admitFollowing(j, "https://www.a.gov/next", past + 2)).toMatchObject({
        kind: "go",
      });
    } finally {
      await other.end().catch(() => {});
      await admin.end();
      await store.close();
    }
  });

  it("P9: a holder made by this process takes its liveness lock on a connection of its own at its first admission, kept while the store is open, gone once it is closed", async () => {
    const loc = await (factory as NonNullable<typeof factory>).migrated();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const store = await openStore(loc);
    const { newHolderId } = await import("../../src/store/holder.js");
    const holder = newHolderId(() => "live1234");
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const lockers = async () =>
      (
        await admin.query(
          "select l.pid, a.application_name as app, a.state from pg_locks l join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory' and l.granted and l.classid = $1::int4::oid and l.objid::int8 = $2::int8 and l.objsubid = 2",
          [HOLDER_ALIVE_CLASS, holderKey(holder) >>> 0],
        )
      ).rows as { pid: number; app: string; state: string }[];
    try {
      expect(await lockers()).toEqual([]);
      const j = new SqlJournal(store.db);
      const a = await j.admit(intent("https://www.a.gov/1"), holder, T0);
      expect(a.kind).toBe("go");
      // Its own session (named so), idle: no transaction open on it, none of the pool's.
      expect(await lockers()).toEqual([
        expect.objectContaining({ app: "nor holder alive", state: "idle" }),
      ]);
      await store.close();
      for (let i = 0; i < 100 && (await lockers()).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await lockers()).toEqual([]);
    } finally {
      await admin.end();
      await store.close().catch(() => {});
    }
  });
  it("P9: a live process whose liveness session the server ended (a restart) makes it again and takes its holders' locks again", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const alive = new HolderLiveness(loc.url);
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const holder = "machine-c:303:cccc";
    const lockers = async () =>
      (
        await admin.query(
          "select pid from pg_locks where locktype = 'advisory' and granted and classid = $1::int4::oid and objid::int8 = $2::int8 and objsubid = 2",
          [HOLDER_ALIVE_CLASS, holderKey(holder) >>> 0],
        )
      ).rows.map((r: { pid: number }) => r.pid);
    try {
      await alive.hold(holder);
      const [first] = await lockers();
      expect(first).toBeDefined();
      await admin.query("select pg_terminate_backend($1)", [first]);
      let now: number[] = [];
      for (let i = 0; i < 300; i++) {
        now = await lockers();
        if (now.length === 1 && now[0] !== first) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(first);
      // Held again, a hold of the same holder answers at once on the new session.
      await alive.hold(holder);
      expect(await lockers()).toEqual(now);
    } finally {
      await admin.end();
      await alive.close();
    }
  });
});
