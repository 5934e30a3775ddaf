import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePasswordHash } from "../../src/store/read/console.js";
import { CONSOLE_PG_CONNECTIONS, openWebReads, type WebReads } from "../../src/store/read-pool.js";
import { createApp } from "../../src/web/app.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { Browser, hashOf, PASSWORD } from "./console-support.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * Never block, on PostgreSQL (NOR_TEST_POSTGRES_URL): the console's reads have a bounded pool
 * of their own, so its heaviest reads, however many, hold at most the console's connections and
 * a public page always has one of its own. "The console's pool is busy" is a state the test
 * holds with an advisory lock (every connection of that pool waits on it inside a statement),
 * not a race; only the order of answers is asserted, never a duration.
 */
type Served = { url: string; close(): Promise<void> };

function serveApp(app: ReturnType<typeof createApp>): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe.skipIf(!postgresUrl)("never block on PostgreSQL (pools of their own)", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let f: Fixture;
  let reads: WebReads;
  let served: Served;
  let cookie = "";
  /** A connection of the test's own, outside every pool of the app: it holds the lock. */
  let holder: pg.Client;
  /** An advisory lock key of this run's own (other files may hold other keys). */
  const KEY = 0x4e4f52_000000 + (process.pid % 1_000_000);

  beforeAll(async () => {
    const loc = await factory.fresh();
    f = await buildFixture(loc);
    reads = await openWebReads(loc);
    expect(reads.kind).toBe("async-driver");
    // The operator's password stored at the console fixtures' scrypt cost (console-support.ts
    // hashOf): the console's full-cost hash and check are console-cli's and browser's.
    await storePasswordHash(f.store.db, hashOf(PASSWORD), NOW);
    const app = createApp({
      db: f.store.db,
      reads,
      now: () => NOW,
      origin: ORIGIN,
      console: {},
    });
    const b = new Browser(app);
    expect((await b.signIn()).status).toBe(303);
    cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    served = await serveApp(app);
    holder = new pg.Client({ connectionString: postgresUrl });
    await holder.connect();
  }, 60_000);

  afterAll(async () => {
    await holder?.query("select pg_advisory_unlock_all()").catch(() => {});
    await holder?.end().catch(() => {});
    await served?.close();
    await reads?.close();
    await f?.close();
    await factory.cleanup();
  });

  /** Statements waiting for the test's lock: the connections held busy. */
  const waiting = async (): Promise<number> => {
    const r = await holder.query<{ n: string }>(
      "select count(*) as n from pg_locks where locktype = 'advisory' and not granted and ((classid::bigint << 32) | objid::bigint) = $1",
      [KEY],
    );
    return Number(r.rows[0]?.n ?? 0);
  };

  it("while every connection of the console's pool waits on a lock (and more of its reads queue), public pages, feeds and the API answer; the console answers once they are released", async () => {
    await holder.query("select pg_advisory_lock($1)", [KEY]);
    // The console's heaviest reads: more than its pool holds, each waiting on the lock inside
    // its statement, so every connection of the pool is busy and the rest queue in the pool.
    const heavy = Array.from({ length: CONSOLE_PG_CONNECTIONS + 2 }, () =>
      sql`select pg_advisory_xact_lock(${KEY}::bigint)`.execute(reads.console),
    );
    // Until the pool's connections all wait (bounded: about 30 s at most).
    for (let i = 0; i < 1_500 && (await waiting()) < CONSOLE_PG_CONNECTIONS; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await waiting()).toBeGreaterThanOrEqual(CONSOLE_PG_CONNECTIONS);

    // A console page now queues behind them.
    let consoleDone = false;
    const overview = fetch(`${served.url}/console`, { headers: { cookie } }).then(async (r) => {
      consoleDone = true;
      return { status: r.status, body: await r.text() };
    });

    const order: string[] = [];
    for (const path of [
      "/",
      "/governments/village-of-test",
      "/sources/test-bids",
      "/new",
      "/new.atom",
      "/api/new",
      "/search?q=record",
    ]) {
      const res = await fetch(`${served.url}${path}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      order.push(path);
    }
    expect(order).toHaveLength(7);
    // Everything public answered while the console's pool was still held: no more of its
    // connections than its own pool's were ever taken, and the console page had not answered.
    expect(await waiting()).toBe(CONSOLE_PG_CONNECTIONS);
    expect(consoleDone).toBe(false);

    await holder.query("select pg_advisory_unlock($1)", [KEY]);
    await Promise.all(heavy);
    const o = await overview;
    expect(o.status).toBe(200);
    expect(o.body).toContain("<!DOCTYPE html>");
  });
});
