/**
 * P9, P10 across machines on PostgreSQL: whether another host's lease holder still lives. On
 * this host a holder's process is asked directly (holder.ts); from another host only the lease
 * running out told, and a process frozen (SIGSTOP) in the middle of a slow
 * body outlived its lease: its site was taken over and asked again while its connection to the
 * site was still open (two requests at once, no gap after its end).
 *
 * So each process that holds leases on a PostgreSQL store keeps, for its whole life, one
 * connection of its own (not one of the pool's, no transaction open on it) holding a
 * session-level advisory lock for each holder it made: the class HOLDER_ALIVE_CLASS and a
 * 32-bit hash of the holder id (holderKey), seen by every role in `pg_locks`. A frozen
 * process's kernel keeps its TCP connection up, so the lock stays held; a killed process's
 * socket closes and the lock goes at once; a machine that vanished (power, network) is noticed
 * by the server's TCP keepalive (30 s, then 3 probes 10 s apart, as the pool's: db.ts), and so
 * is a suspended one (its kernel answers no probe: not covered, as before). A lease
 * run out is taken over only once its holder's lock is gone (heldElsewhere, journal.ts).
 *
 * The locks are shared ones: two holders whose ids hash alike both hold theirs, and each is
 * seen alive while the other lives (never the other way round).
 */
import type pg from "pg";
import { sql } from "./kysely.js";
import type { Tx } from "./write-txn.js";

/** The advisory lock class of "a nor lease holder is alive" ("norh"). */
export const HOLDER_ALIVE_CLASS = 0x6e6f7268;

/** The second key of a holder's liveness lock: FNV-1a of its id, as a signed 32-bit int. */
export function holderKey(holder: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(holder, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * The server probes a silent connection after 30 s, three probes 10 s apart (set on each of the
 * store's pool connections, db.ts heldLocksLetGo, and on the liveness connection): a machine gone
 * without a word lets go of its locks within a minute or so.
 */
export const KEEPALIVE_SQL =
  "set tcp_keepalives_idle = 30; set tcp_keepalives_interval = 10; set tcp_keepalives_count = 3";

/*
 * The timers below are real ones, not a Clock's: each times a real connection to the server (how
 * long it may stay silent, how long its end may take, a pause before asking a restarting server
 * again), which a simulated clock's time says nothing of. They run in the background (`hold`
 * never waits on one; `close` on END_MS at most, for a server that no longer answers) and are
 * unref'd, so that none keeps the process alive, which a Clock's sleep does not promise. The
 * store that makes this (db.ts openStore) is given no clock; tests shorten the heartbeat
 * (`heartbeatMs`).
 */

/** The pauses before a lost liveness connection is made again (the last repeats). */
const RECONNECT_MS = [1000, 2000, 5000] as const;

/**
 * How often the liveness connection is asked to answer (and how long an answer may take): a
 * session the server ended without this process hearing of it (a failover that moved the
 * server's address, a network cut its keepalive reaped it in) is otherwise never noticed, since
 * nothing is sent on it (the client's own keepalive waits the system's two hours), and its
 * locks are gone while its admissions go on.
 */
const HEARTBEAT_MS = 10_000;

/** How long the store's close waits for the server to hear the connection's end. */
const END_MS = 2_000;

function socketOf(client: pg.Client): { destroy?(): void; unref?(): void } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy?(): void; unref?(): void } } })
    .connection?.stream;
}

/**
 * The liveness connection of one store in this process: made at the first holder's `hold`,
 * made again (every lock taken again) when the server ends it while this process lives (a
 * restart), ended by `close` with the store. It never keeps the process alive (its socket is
 * unref'd) and never ends it (its errors are listened to).
 */
export class HolderLiveness {
  readonly #url: string;
  /** Every holder asked for, taken again on a new connection. */
  readonly #holders = new Set<string>();
  /** The connection with every holder of `#holders` locked, once made. */
  #ready: Promise<pg.Client> | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #lost = 0;
  readonly #heartbeatMs: number;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(url: string, opts: { heartbeatMs?: number } = {}) {
    this.#url = url;
    this.#heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** Holds `holder`'s liveness lock from now until the process (or the store) ends. */
  async hold(holder: string): Promise<void> {
    if (this.#closed) throw new Error("holder liveness: the store is closed");
    if (this.#holders.has(holder) && this.#ready !== undefined) {
      await this.#ready;
      return;
    }
    const first = !this.#holders.has(holder);
    this.#holders.add(holder);
    if (this.#ready === undefined) {
      await this.#connected();
      return;
    }
    const client = await this.#ready;
    if (first) await lock(client, holder);
  }

  /** Lets every lock go (the connection ends). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    const ready = this.#ready;
    this.#ready = undefined;
    const client = await ready?.catch(() => undefined);
    if (client === undefined) return;
    // A connection the server no longer answers on would keep `end` waiting for ever.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((done) => {
      timer = setTimeout(() => {
        socketOf(client)?.destroy?.();
        done();
      }, END_MS);
      timer.unref();
    });
    await Promise.race([client.end().catch(() => {}), late]);
    clearTimeout(timer);
  }

  /** Asks the connection to answer now and then; one that fails or is silent is made again. */
  #beat(client: pg.Client): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    let asking = false;
    const timer = setInterval(() => {
      if (this.#closed || asking) return;
      asking = true;
      let answered = false;
      const silent = setTimeout(() => {
        if (!answered) this.#drop(client, timer);
      }, this.#heartbeatMs);
      silent.unref();
      client
        .query("select 1")
        .then(
          () => {
            answered = true;
          },
          () => {
            answered = true;
            this.#drop(client, timer);
          },
        )
        .finally(() => {
          clearTimeout(silent);
          asking = false;
        });
    }, this.#heartbeatMs);
    timer.unref();
    this.#heartbeat = timer;
  }

  /** A connection that no longer answers: ended here, and made again. */
  #drop(client: pg.Client, timer: NodeJS.Timeout): void {
    clearInterval(timer);
    if (this.#heartbeat === timer) this.#heartbeat = undefined;
    socketOf(client)?.destroy?.();
    this.#lostConnection(client);
  }

  #connected(): Promise<pg.Client> {
    if (this.#ready !== undefined) return this.#ready;
    const ready = this.#connect();
    this.#ready = ready;
    // A connection not made is asked again by the next hold (its caller hears why).
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = undefined;
    });
    return ready;
  }

  async #connect(): Promise<pg.Client> {
    const { default: Pg } = await import("pg");
    const client = new Pg.Client({
      connectionString: this.#url,
      application_name: "nor holder alive",
      keepAlive: true,
    });
    const lost = () => this.#lostConnection(client);
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      // Never what keeps the process alive: its end (or the store's close) ends the session.
      socketOf(client)?.unref?.();
      // The server probes a silent connection after 30 s (db.ts heldLocksLetGo): a machine
      // gone without a word lets its holders go within a minute or so.
      await client.query(KEEPALIVE_SQL);
      // Idle by design, so never ended for it: a server, role or database whose
      // idle_session_timeout (PostgreSQL 14+) ends idle sessions let its locks go, and a frozen
      // process's site was taken over beside its open request (P9).
      await client.query(
        "select set_config('idle_session_timeout', '0', false) where current_setting('server_version_num')::int >= 140000",
      );
      for (const h of this.#holders) await lock(client, h);
      if (this.#closed) throw new Error("holder liveness: the store is closed");
      this.#lost = 0;
      this.#beat(client);
      return client;
    } catch (err) {
      client.removeListener("end", lost);
      await client.end().catch(() => {});
      throw err;
    }
  }

  /** The server ended the connection (a restart, pg_terminate_backend): made again. */
  #lostConnection(client: pg.Client): void {
    if (this.#closed) return;
    const ready = this.#ready;
    void ready
      ?.then((c) => {
        if (c !== client || this.#ready !== ready) return;
        this.#ready = undefined;
        this.#again();
      })
      .catch(() => {});
  }

  #again(): void {
    if (this.#closed || this.#retry !== undefined) return;
    const pause = RECONNECT_MS[Math.min(this.#lost++, RECONNECT_MS.length - 1)];
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed || this.#ready !== undefined) return;
      this.#connected().catch(() => this.#again());
    }, pause);
    this.#retry.unref();
  }
}

async function lock(client: pg.Client, holder: string): Promise<void> {
  await client.query("select pg_advisory_lock_shared($1::int4, $2::int4)", [
    HOLDER_ALIVE_CLASS,
    holderKey(holder),
  ]);
}

/** Each PostgreSQL store's liveness connection (db.ts openStore), by its kysely instance. */
const byStore = new WeakMap<object, HolderLiveness>();

export function registerLiveness(db: object, liveness: HolderLiveness): void {
  byStore.set(db, liveness);
}

export function livenessOf(db: object): HolderLiveness | undefined {
  return byStore.get(db);
}

/**
 * Which of `holders` hold their liveness lock in this database now (any session, any role):
 * one read of `pg_locks`, asked only of leases that would otherwise be taken over.
 */
export async function heldElsewhere(tx: Tx, holders: readonly string[]): Promise<Set<string>> {
  if (holders.length === 0) return new Set();
  const keys = [...new Set(holders.map((h) => holderKey(h) >>> 0))];
  const rows = await sql<{ k: string | number }>`
    select objid::int8 as k from pg_locks
    where locktype = 'advisory' and granted and objsubid = 2
      and database = (select oid from pg_database where datname = current_database())
      and classid = ${HOLDER_ALIVE_CLASS}::int4::oid
      and objid::int8 = any(${keys}::int8[])`.execute(tx);
  const held = new Set(rows.rows.map((r) => Number(r.k)));
  return new Set(holders.filter((h) => held.has(holderKey(h) >>> 0)));
}
