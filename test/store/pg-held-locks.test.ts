import { afterAll, describe, expect, it } from "vitest";
import { IDLE_IN_TRANSACTION_MS, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * An outside tester's finding (ot-pg): one machine's worker frozen (SIGSTOP) or cut off with a
 * transaction open held a site's row lock, and every other machine's night sent nothing to any
 * site until it came back (five minutes; a machine that lost power, two hours: the server's
 * default keepalive). The store's own sessions now let go: an idle transaction ends after a
 * lane's lease, and a silent connection is probed after 30 s.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

describe.skipIf(!factory)("the store's PostgreSQL sessions", () => {
  it("P9, P13: each session of the store's pool ends an idle transaction after a lane's lease and probes a silent peer after 30 s", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const store = await openStore(loc);
    try {
      expect(IDLE_IN_TRANSACTION_MS).toBe(60_000);
      // Every connection the pool opens (four at once, each its own), not only the first.
      const settings = await Promise.all(
        Array.from({ length: 4 }, () =>
          store.db.transaction().execute(async (trx) => {
            const r = await sql<{ idle: string; probe: string; pid: number }>`
              select current_setting('idle_in_transaction_session_timeout') as idle,
                     current_setting('tcp_keepalives_idle') as probe,
                     pg_backend_pid() as pid, pg_sleep(0.05)`.execute(trx);
            return r.rows[0];
          }),
        ),
      );
      expect(new Set(settings.map((s) => s?.pid)).size).toBe(4);
      for (const s of settings) expect(s).toMatchObject({ idle: "1min", probe: "30" });
    } finally {
      await store.close();
    }
  });
});
