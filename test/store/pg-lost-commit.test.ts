import { createServer, type Server, connect as tcpConnect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { Completion, SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { LOSS_PAUSES_MS } from "../../src/store/write-txn.js";
import { PauseClock } from "./pause-clock.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A COMMIT whose answer never comes back: the connection to PostgreSQL cut while the journal's
 * group commit waited for it. The server may have committed (the answer was lost on the way
 * back) or not (the COMMIT never reached it). Played by a TCP relay on loopback between the
 * store and the server, which reads the client's messages (PostgreSQL's wire protocol: a
 * startup message, then a type byte and a length each) and, once armed, cuts both connections
 * at the next `commit`: after the server answered it (reply lost), or before passing it on
 * (never arrived: the server rolls the transaction back when its client goes).
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

type Cut = "reply-lost" | "never-arrived" | "held";

interface Relay {
  port: number;
  /** Cut the connection at the next COMMIT, as `how` says. */
  arm(how: Cut): void;
  /** COMMITs cut so far. */
  cuts(): number;
  /**
   * Statements whose text contains `pattern` are answered by the relay itself with an error of
   * SQLSTATE `code`, never passed on (as a server answers that no longer knows something);
   * undefined: passed on again.
   */
  answerWithError(e: { pattern: string; code: string; message: string } | undefined): void;
  /** The server's sides a "held" cut left open, closed now (the server then rolls back). */
  dropHeld(): void;
  /** The local ports of the server's sides "held" cuts left (pg_stat_activity.client_port). */
  heldPorts(): number[];
  close(): Promise<void>;
}

async function relayTo(host: string, port: number): Promise<Relay> {
  let armed: Cut | undefined;
  let cuts = 0;
  let refused: { pattern: string; code: string; message: string } | undefined;
  /** ErrorResponse, then ReadyForQuery (idle): PostgreSQL's answer to a statement that failed. */
  const errorAnswer = (e: { code: string; message: string }): Buffer => {
    const fields = Buffer.concat([
      Buffer.from(`SERROR\0VERROR\0C${e.code}\0M${e.message}\0`, "utf8"),
      Buffer.from([0]),
    ]);
    const head = Buffer.alloc(5);
    head[0] = 0x45;
    head.writeInt32BE(4 + fields.length, 1);
    return Buffer.concat([head, fields, Buffer.from([0x5a, 0, 0, 0, 5, 0x49])]);
  };
  const upstreams: import("node:net").Socket[] = [];
  const heldOpen: import("node:net").Socket[] = [];
  const heldPorts: number[] = [];
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(port, host);
    upstreams.push(upstream);
    let pending = Buffer.alloc(0);
    let startup = true;
    let cut = false;
    // An extended-protocol statement being answered by the relay: its messages up to Sync.
    let swallowing: { code: string; message: string } | undefined;
    // "held": only the client's side is cut; the server's session stays open, idle inside its
    // transaction, as behind a NAT that dropped the connection silently.
    let held = false;
    const kill = () => {
      cut = true;
      client.destroy();
      if (!held) upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      if (cut) return;
      pending = Buffer.concat([pending, chunk]);
      // Whole messages only, at most as many as the bytes allow (each is at least 4 bytes long).
      for (let guard = 0; guard < 100_000; guard++) {
        if (startup) {
          if (pending.length < 8) return;
          const len = pending.readInt32BE(0);
          if (pending.length < len) return;
          const msg = pending.subarray(0, len);
          pending = pending.subarray(len);
          upstream.write(msg);
          // An SSL request (80877103) is followed by the real startup message.
          if (msg.readInt32BE(4) !== 80877103) startup = false;
          continue;
        }
        if (pending.length < 5) return;
        const len = pending.readInt32BE(1);
        if (pending.length < 1 + len) return;
        const msg = pending.subarray(0, 1 + len);
        pending = pending.subarray(1 + len);
        if (swallowing !== undefined) {
          // Sync: the end of the statement's messages; the answer is the error and ready.
          if (msg[0] === 0x53) {
            client.write(errorAnswer(swallowing));
            swallowing = undefined;
          }
          continue;
        }
        if (
          refused !== undefined &&
          (msg[0] === 0x50 || msg[0] === 0x51) &&
          msg.subarray(5).toString("utf8").includes(refused.pattern)
        ) {
          // Parse: answered at its Sync; a simple Query: at once.
          if (msg[0] === 0x50) swallowing = refused;
          else client.write(errorAnswer(refused));
          continue;
        }
        const isCommit =
          msg[0] === 0x51 &&
          msg
            .subarray(5, msg.length - 1)
            .toString("utf8")
            .trim()
            .toLowerCase() === "commit";
        if (armed !== undefined && isCommit) {
          const how = armed;
          armed = undefined;
          cuts++;
          if (how === "never-arrived" || how === "held") {
            held = how === "held";
            if (held) {
              heldOpen.push(upstream);
              if (upstream.localPort !== undefined) heldPorts.push(upstream.localPort);
            }
            kill();
            return;
          }
          // Passed on; the server's answer is dropped and the connection cut once it comes.
          cut = true;
          upstream.once("data", kill);
          upstream.write(msg);
          return;
        }
        upstream.write(msg);
      }
    });
    upstream.on("data", (d: Buffer) => {
      if (!cut) client.write(d);
    });
    client.on("error", kill);
    upstream.on("error", kill);
    client.on("close", kill);
    upstream.on("close", kill);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("relay: no port");
  return {
    port: addr.port,
    arm: (how) => {
      armed = how;
    },
    cuts: () => cuts,
    answerWithError: (e) => {
      refused = e;
    },
    dropHeld: () => {
      for (const u of heldOpen.splice(0)) u.destroy();
    },
    heldPorts: () => [...heldPorts],
    close: () =>
      new Promise<void>((resolve) => {
        for (const u of upstreams) u.destroy();
        server.close(() => resolve());
        // Open relayed connections end with the pool's.
      }),
  };
}

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
const ME = "machine-t:108:tttt";

function intent(url: string): SendIntent {
  const u = new URL(url);
  return {
    night: NIGHT,
    key: `GET ${url}`,
    method: "GET",
    url,
    site: u.hostname.split(".").slice(-2).join("."),
    origin: u.origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
  };
}

async function relayedStore() {
  // A schema made as openStore makes one (stores.ts migrated()): openStore through the relay
  // then finds nothing to migrate, so every migration is not sent again through it per test
  // (the relay is armed only after the store is open).
  const loc = await (factory as NonNullable<typeof factory>).migrated();
  if (loc.kind !== "postgres") throw new Error(loc.kind);
  const u = new URL(loc.url);
  const relay = await relayTo(u.hostname, Number(u.port || 5432));
  u.hostname = "127.0.0.1";
  u.port = String(relay.port);
  const store = await openStore({ ...loc, url: u.toString() });
  return { store, relay };
}

describe.skipIf(!factory)("a COMMIT whose answer is lost (PostgreSQL)", () => {
  it("P27, P15: a batch of admissions whose COMMIT the server made but whose answer was lost is given back as admitted, one row each: no second row, none read as a request interrupted on the wire", async () => {
    const { store, relay } = await relayedStore();
    try {
      const clock = new PauseClock();
      const journal = new SqlJournal(store.db, clock);
      relay.arm("reply-lost");
      // Asked in the same turn: one batch, one transaction, one COMMIT.
      const [a, b] = await Promise.all([
        journal.admit(intent("https://www.a.gov/one"), ME, T0),
        journal.admit(intent("https://www.b.gov/two"), ME, T0),
      ]);
      expect(relay.cuts()).toBe(1);
      expect(a).toMatchObject({ kind: "go", attempt: 1 });
      expect(b).toMatchObject({ kind: "go", attempt: 1 });
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.map((r) => [r.url, r.outcome]).sort()).toEqual([
        ["https://www.a.gov/one", "in-flight"],
        ["https://www.b.gov/two", "in-flight"],
      ]);
      // The id given back is the row's: its completion is written on it.
      if (a.kind !== "go") throw new Error(a.kind);
      expect(await journal.complete(a.id, ME, done(T0 + 100))).toBe(true);
    } finally {
      await store.close();
      await relay.close();
    }
  });

  it("P27: a lone admission whose COMMIT the server made but whose answer was lost is admitted, not failed (its row and lease would otherwise be left for the next request to that site to read as interrupted)", async () => {
    const { store, relay } = await relayedStore();
    try {
      const clock = new PauseClock();
      const journal = new SqlJournal(store.db, clock);
      relay.arm("reply-lost");
      const a = await journal.admit(intent("https://www.a.gov/one"), ME, T0);
      expect(relay.cuts()).toBe(1);
      expect(a).toMatchObject({ kind: "go", attempt: 1 });
      if (a.kind !== "go") throw new Error(a.kind);
      expect(await journal.complete(a.id, ME, done(T0 + 100))).toBe(true);
      // The site's lease was let go with that end: the next request to it goes, and no row
      // is interrupted.
      const next = await journal.admit(intent("https://www.a.gov/two"), ME, T0 + 5000);
      expect(next).toMatchObject({ kind: "go", startedAt: T0 + 5000 });
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.filter((r) => r.outcome === "interrupted")).toEqual([]);
      expect(rows).toHaveLength(2);
    } finally {
      await store.close();
      await relay.close();
    }
  });

  it("P27: a COMMIT that never reached the server is not taken as made: a lone admission fails with nothing stored, a batch's admissions are written again each alone, one row each", async () => {
    const { store, relay } = await relayedStore();
    try {
      const clock = new PauseClock();
      const journal = new SqlJournal(store.db, clock);
      relay.arm("never-arrived");
      await expect(journal.admit(intent("https://www.a.gov/one"), ME, T0)).rejects.toThrow();
      expect(relay.cuts()).toBe(1);
      expect(await new SqlRequestLog(store.db).query({})).toEqual([]);
      relay.arm("never-arrived");
      const [a, b] = await Promise.all([
        journal.admit(intent("https://www.a.gov/one"), ME, T0 + 10),
        journal.admit(intent("https://www.b.gov/two"), ME, T0 + 10),
      ]);
      expect(relay.cuts()).toBe(2);
      expect(a).toMatchObject({ kind: "go", attempt: 1 });
      expect(b).toMatchObject({ kind: "go", attempt: 1 });
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.map((r) => [r.url, r.outcome]).sort()).toEqual([
        ["https://www.a.gov/one", "in-flight"],
        ["https://www.b.gov/two", "in-flight"],
      ]);
    } finally {
      await store.close();
      await relay.close();
    }
  });
});

describe.skipIf(!factory)("a lost COMMIT whose fate cannot be asked (PostgreSQL)", () => {
  it("P27, P15: a completion whose COMMIT was lost, asked after on a server that no longer knows its transaction (failed over: 'transaction ID … is in the future'), is asked again on a fresh session as before, and written: the question's own failure is no answer about the COMMIT", async () => {
    const { store, relay } = await relayedStore();
    try {
      const clock = new PauseClock();
      const journal = new SqlJournal(store.db, clock);
      const a = await journal.admit(intent("https://www.a.gov/one"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      relay.answerWithError({
        pattern: "txid_status",
        code: "22023",
        message: "transaction ID 1234 is in the future",
      });
      relay.arm("never-arrived");
      expect(await journal.complete(a.id, ME, done(T0 + 100))).toBe(true);
      expect(relay.cuts()).toBe(1);
      // Asked again after the first pause after a lost connection, on the journal's clock.
      expect(clock.slept).toEqual([LOSS_PAUSES_MS[0]]);
      relay.answerWithError(undefined);
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.map((r) => [r.url, r.outcome, r.status])).toEqual([
        ["https://www.a.gov/one", "ok", 200],
      ]);
    } finally {
      await store.close();
      await relay.close();
    }
  });
});

describe.skipIf(!factory)("a COMMIT cut off while the server's session stays (PostgreSQL)", () => {
  it("P27, P15: a completion whose stuck session this role may not end (pg_terminate_backend refused) is asked again on a fresh session once its fate is not known, and written when that session goes: the refusal is no answer about the COMMIT", async () => {
    const { store, relay } = await relayedStore();
    try {
      const clock = new PauseClock();
      const journal = new SqlJournal(store.db, clock);
      const a = await journal.admit(intent("https://www.a.gov/one"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      relay.answerWithError({
        pattern: "pg_terminate_backend",
        code: "42501",
        message: "permission denied for function pg_terminate_backend",
      });
      relay.arm("held");
      const completed = journal.complete(a.id, ME, done(T0 + 100)).then(
        (v) => ({ v }),
        (e: unknown) => ({ e }),
      );
      const { sql } = await import("../../src/store/kysely.js");
      // Asked again, the completion waits for the row the stuck session holds: that session
      // is then let go (as the server would once it idled past its bound), and it is written.
      let settled: { v: boolean } | { e: unknown } | undefined;
      for (let i = 0; i < 1200 && settled === undefined; i++) {
        settled = await Promise.race([
          completed,
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
        ]);
        if (settled !== undefined) break;
        const waiting = await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database()
            and query ilike '%request_log%'`.execute(store.db);
        if (waiting.rows[0]?.n !== "0") relay.dropHeld();
      }
      expect(settled).toEqual({ v: true });
      // Its fate asked at once, then after each of the pauses (about 14 s of the journal's
      // clock: a server restarting is waited for), and only then not known; the completion
      // asked again after the first pause.
      expect(clock.slept).toEqual([...LOSS_PAUSES_MS, LOSS_PAUSES_MS[0]]);
      relay.answerWithError(undefined);
      const rows = await new SqlRequestLog(store.db).query({});
      expect(rows.map((r) => [r.url, r.outcome])).toEqual([["https://www.a.gov/one", "ok"]]);
    } finally {
      await store.close();
      await relay.close();
    }
  });

  it("P27, P9: a COMMIT that never arrived, its session left idle inside the transaction with the site's lock, is ended and taken as not made: the admission fails with nothing stored, and the site's next admission is not held up by that session", async () => {
    const { store, relay } = await relayedStore();
    try {
      const { sql } = await import("../../src/store/kysely.js");
      // The pause after the stuck session was ended lasts until the server has ended it (as the
      // real pause gives it time to), so the question asked after it finds the transaction
      // rolled back (a bounded wait for the server).
      const clock = new PauseClock({
        until: async () => {
          for (let i = 0; i < 500; i++) {
            const gone = await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
              where client_port = any(${relay.heldPorts()}::int[])`.execute(store.db);
            if (gone.rows[0]?.n === "0") return;
            await new Promise((r) => setTimeout(r, 10));
          }
        },
      });
      const journal = new SqlJournal(store.db, clock);
      relay.arm("held");
      await expect(journal.admit(intent("https://www.a.gov/one"), ME, T0)).rejects.toThrow();
      expect(relay.cuts()).toBe(1);
      // Asked at once (in progress: the session was ended), then once more after the first
      // pause: rolled back, taken as not made.
      expect(clock.slept).toEqual([LOSS_PAUSES_MS[0]]);
      expect(await new SqlRequestLog(store.db).query({})).toEqual([]);
      // The stuck session was ended: nothing of this store is left idle in a transaction.
      const ports = relay.heldPorts();
      expect(ports).toHaveLength(1);
      const left = await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
        where state like 'idle in transaction%' and client_port = ${ports[0]}`.execute(store.db);
      expect(left.rows[0]?.n).toBe("0");
      const next = await journal.admit(intent("https://www.a.gov/one"), ME, T0 + 10);
      expect(next).toMatchObject({ kind: "go", attempt: 1 });
    } finally {
      await store.close();
      await relay.close();
    }
  });
});

function done(endedAt: number): Completion {
  return { endedAt, status: 200, outcome: "ok", bytes: 10, final: true, closedEarly: false };
}
