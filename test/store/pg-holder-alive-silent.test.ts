import { createConnection, createServer, type Socket } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { HOLDER_ALIVE_CLASS, HolderLiveness, holderKey } from "../../src/store/holder-liveness.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A liveness session the server ended without the process hearing of it (a failover that moved
 * the server's address, a network cut the server's keepalive reaped it in): the process sends
 * nothing on that connection, so it never learned (the client's own keepalive: the system's two
 * hours), its locks were gone, and its next admissions went on as if held. A process frozen
 * later had its site taken over beside its open request (P9).
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

/** A relay to the server whose `silence` ends the server's sides and leaves the client's open. */
async function relay(target: URL) {
  const pairs: { client: Socket; server: Socket }[] = [];
  const silenced: Socket[] = [];
  const srv = createServer((client) => {
    const server = createConnection(Number(target.port || 5432), target.hostname);
    client.on("error", () => {});
    server.on("error", () => {});
    client.pipe(server);
    server.pipe(client, { end: false });
    pairs.push({ client, server });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as import("node:net").AddressInfo).port;
  return {
    port,
    silence() {
      for (const p of pairs.splice(0)) {
        p.client.unpipe(p.server);
        p.server.unpipe(p.client);
        p.client.on("data", () => {});
        p.server.destroy();
        silenced.push(p.client);
      }
    },
    async close() {
      for (const c of silenced.splice(0)) c.destroy();
      for (const p of pairs.splice(0)) {
        p.client.destroy();
        p.server.destroy();
      }
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

describe.skipIf(!factory)("a liveness session ended without a word (PostgreSQL)", () => {
  it("P9: a liveness session the server ended unheard is noticed (a heartbeat) and made again, its holders' locks taken again", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const target = new URL(loc.url);
    const r = await relay(target);
    const via = new URL(loc.url);
    via.hostname = "127.0.0.1";
    via.port = String(r.port);
    const alive = new HolderLiveness(via.toString(), { heartbeatMs: 100 });
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const holder = "machine-e:505:eeee";
    const lockers = async () =>
      (
        await admin.query(
          "select pid from pg_locks where locktype = 'advisory' and granted and classid = $1::int4::oid and objid::int8 = $2::int8 and objsubid = 2",
          [HOLDER_ALIVE_CLASS, holderKey(holder) >>> 0],
        )
      ).rows.map((x: { pid: number }) => x.pid);
    try {
      await alive.hold(holder);
      const [first] = await lockers();
      expect(first).toBeDefined();
      r.silence();
      // The server's side gone, its lock with it (bounded wait).
      for (let i = 0; i < 100 && (await lockers()).includes(first as number); i++)
        await new Promise((res) => setTimeout(res, 20));
      // Held again on a new session, within a bounded wait (heartbeats 100 ms apart, the first
      // pause before making it again 1 s).
      let now: number[] = [];
      for (let i = 0; i < 200; i++) {
        now = await lockers();
        if (now.length === 1 && now[0] !== first) break;
        await new Promise((res) => setTimeout(res, 25));
      }
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(first);
    } finally {
      await alive.close();
      await admin.end();
      await r.close();
    }
  });

  it("P9: the store's close ends a liveness session the server no longer answers on (it waited for ever for the server's word)", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const r = await relay(new URL(loc.url));
    const via = new URL(loc.url);
    via.hostname = "127.0.0.1";
    via.port = String(r.port);
    // No heartbeat within the test: the silent session is still the one the close finds.
    const alive = new HolderLiveness(via.toString(), { heartbeatMs: 3_600_000 });
    try {
      await alive.hold("machine-f:606:ffff");
      r.silence();
      const closed = await Promise.race([
        alive.close().then(() => "closed"),
        new Promise((res) => setTimeout(() => res("still waiting"), 10_000)),
      ]);
      expect(closed).toBe("closed");
    } finally {
      await r.close();
    }
  });
});
