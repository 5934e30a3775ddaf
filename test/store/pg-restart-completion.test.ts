import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { LOSS_PAUSES_MS } from "../../src/store/write-txn.js";
import { PauseClock } from "./pause-clock.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * PostgreSQL restarted (an upgrade, a crash, a failover) while a worker writes a request's
 * completion: its session ends (57P01), and for a few seconds every new connection is refused
 * or ended at once. What the site answered (its end, a no, a Retry-After) must be written once
 * the store is back, not given up after a few tries made within the same millisecond: the
 * process would go on with the site's no unrecorded, and a resumed night would ask it again.
 * Here a TCP proxy on 127.0.0.1 stands for the server: it ends every connection it holds and
 * the next ones it is asked for, as a server shutting down and starting up does.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
const ME = "machine-u:109:uuuu";
const OTHER = "machine-v:210:vvvv";

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

/** A proxy to PostgreSQL that can be "restarted": its connections ended, the next `down` refused. */
async function proxyTo(target: URL) {
  const open = new Set<net.Socket>();
  let refuse = 0;
  const server = net.createServer((client) => {
    if (refuse > 0) {
      refuse--;
      client.destroy();
      return;
    }
    const up = net.connect(Number(target.port || 5432), target.hostname);
    open.add(client);
    open.add(up);
    const end = () => {
      client.destroy();
      up.destroy();
      open.delete(client);
      open.delete(up);
    };
    client.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
    client.pipe(up);
    up.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    restart(down: number) {
      refuse = down;
      for (const s of open) s.destroy();
      open.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!factory)("a completion while PostgreSQL restarts", () => {
  it("P21, P27: the server restarted while the completion of a no is written: once it is back the completion is written (the site closed, the row the site's answer), not given up", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const proxy = await proxyTo(new URL(loc.url));
    const viaProxy = new URL(loc.url);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    const store = await openStore({ ...loc, url: viaProxy.toString() });
    try {
      const clock = new PauseClock();
      const j = new SqlJournal(store.db, clock);
      const url = "https://www.a.gov/page";
      const a = await j.admit(intent(url), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      // The server goes down as the answer (a challenge page: the site's no) is being written,
      // and refuses the next few connections while it starts up again.
      proxy.restart(4);
      const written = await j.complete(a.id, ME, {
        status: 200,
        outcome: "refused",
        bytes: 10,
        final: true,
        closedEarly: false,
        endedAt: T0 + 500,
        closeSite: "challenge page (cloudflare)",
      });
      expect(written).toBe(true);
      // Each try after a lost or refused connection came after its pause on the journal's
      // clock, in order (not all within the same millisecond of the restart): one for each of
      // the four refused, and one for each pooled session found ended, unless the pool had
      // dropped it first.
      expect(clock.slept.length).toBeGreaterThanOrEqual(4);
      expect(clock.slept).toEqual(LOSS_PAUSES_MS.slice(0, clock.slept.length));
      expect(await j.admit(intent("https://www.a.gov/next"), OTHER, T0 + 60_000)).toEqual({
        kind: "closed",
        reason: "challenge page (cloudflare)",
      });
      const row = (await new SqlRequestLog(store.db).query({})).find((e) => e.url === url);
      expect(row).toMatchObject({ outcome: "refused", status: 200, endedAt: T0 + 500 });
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
