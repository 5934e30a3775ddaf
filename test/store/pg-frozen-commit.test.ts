import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { LOSS_PAUSES_MS } from "../../src/store/write-txn.js";
import { PauseClock } from "./pause-clock.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * PostgreSQL ends a transaction left idle for a lane's lease (db.ts IDLE_IN_TRANSACTION_MS), so
 * a worker frozen (SIGSTOP) in the middle of completing a request finds, when it wakes, that its
 * session is gone and its completion rolled back: the site's end, a no or a Retry-After in the
 * answer would be lost, and the worker's night would stop on a store error. SQLite cannot end
 * another process's transaction (the frozen one keeps the write lock, the others wait), so only
 * PostgreSQL loses it. The completion is the same question asked again (compare and set, the
 * later end, the stricter hold), so it is asked again on a fresh session.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
const FROZEN = "machine-r:106:rrrr";
const ME = "machine-s:207:ssss";

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

/**
 * Freezes the first completion's transaction just after its row's compare and set (the first
 * `update "request_log"` that returns the site), while `whileFrozen` runs: there the server ends
 * the session, as its idle-in-transaction timeout does. Told by its result (a row with the
 * site), not by its query: the statement is built once per dialect (prepared.ts), and with the
 * suite's files sharing modules (vitest `isolate: false`) another file may have built it before,
 * without this plugin ever seeing the query.
 */
function freezeInCompletion(whileFrozen: () => Promise<void>): KyselyPlugin {
  let done = false;
  return {
    transformQuery(args: PluginTransformQueryArgs) {
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      const row = args.result.rows[0] as Record<string, unknown> | undefined;
      if (!done && row !== undefined && "site" in row && "night" in row) {
        done = true;
        await whileFrozen();
      }
      return args.result;
    },
  };
}

describe.skipIf(!factory)("a worker frozen in the middle of a completion (PostgreSQL)", () => {
  it("P10, P21, P27: its session ended by the server while frozen, the completion is written on a fresh one when it wakes: the site keeps the no and the end, the row what the site answered (after a takeover meanwhile)", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const app = `nor_frozen_${process.pid}_${Date.now().toString(36)}`;
    const store = await openStore({ ...loc, url: `${loc.url}&application_name=${app}` });
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      const other = new SqlJournal(store.db);
      const url = "https://www.a.gov/frozen";
      const a = await other.admit(intent(url), FROZEN, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      let takeover = T0 + REQUEST_LEASE_MS + 1;
      const clock = new PauseClock();
      const frozen = new SqlJournal(
        store.db.withPlugin(
          freezeInCompletion(async () => {
            // 60 s idle in the transaction: the server ends the session (rolled back).
            const ended = await admin.query(
              "select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = $1 and state = 'idle in transaction'",
              [app],
            );
            expect(ended.rows).toEqual([{ ok: true }]);
            // The request's lease runs out: another worker takes the site over (bounded waits).
            let mine = await other.admit(intent("https://www.a.gov/next"), ME, takeover);
            for (let i = 0; i < 3 && mine.kind === "wait"; i++) {
              takeover = mine.until;
              mine = await other.admit(intent("https://www.a.gov/next"), ME, takeover);
            }
            if (mine.kind !== "go") throw new Error(mine.kind);
            expect(await other.complete(mine.id, ME, { ...done, endedAt: takeover + 100 })).toBe(
              true,
            );
          }),
        ),
        clock,
      );
      // The frozen worker had read a 403 (the site's no) at T0 + 500 and was writing it.
      const written = await frozen.complete(a.id, FROZEN, {
        ...done,
        status: 403,
        outcome: "refused",
        endedAt: T0 + 500,
        closeSite: "HTTP 403",
      });
      expect(written).toBe(false);
      // Asked again once, after the first pause after a lost connection, on its clock.
      expect(clock.slept).toEqual([LOSS_PAUSES_MS[0]]);
      // The site's no holds: nothing more goes there tonight.
      expect(await other.admit(intent("https://www.a.gov/third"), ME, takeover + 60_000)).toEqual({
        kind: "closed",
        reason: "HTTP 403",
      });
      const row = (await new SqlRequestLog(store.db).query({})).find((e) => e.url === url);
      expect(row).toMatchObject({ outcome: "interrupted", status: 403, endedAt: T0 + 500 });
    } finally {
      await admin.end();
      await store.close();
    }
  });

  it("P27: its session ended while frozen, no takeover meanwhile: its own completion is written whole on a fresh session, and said written (also when asked again after a COMMIT that went through)", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    const app = `nor_frozen_${process.pid}_${Date.now().toString(36)}_b`;
    const store = await openStore({ ...loc, url: `${loc.url}&application_name=${app}` });
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      const clock = new PauseClock();
      const frozen = new SqlJournal(
        store.db.withPlugin(
          freezeInCompletion(async () => {
            await admin.query(
              "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and state = 'idle in transaction'",
              [app],
            );
          }),
        ),
        clock,
      );
      const url = "https://www.a.gov/page";
      const a = await frozen.admit(intent(url), FROZEN, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      const c = { ...done, endedAt: T0 + 500 };
      expect(await frozen.complete(a.id, FROZEN, c)).toBe(true);
      expect(clock.slept).toEqual([LOSS_PAUSES_MS[0]]);
      // The same completion again (its COMMIT went through, its answer lost): the same word.
      expect(await frozen.complete(a.id, FROZEN, c)).toBe(true);
      const row = (await new SqlRequestLog(store.db).query({})).find((e) => e.url === url);
      expect(row).toMatchObject({ outcome: "ok", status: 200, endedAt: T0 + 500 });
      // The lease let go, the gap from the end (P10).
      expect(await frozen.admit(intent("https://www.a.gov/2"), ME, T0 + 1000)).toMatchObject({
        kind: "wait",
        until: T0 + 2501,
      });
    } finally {
      await admin.end();
      await store.close();
    }
  });
});

const done = {
  status: 200,
  outcome: "ok",
  bytes: 10,
  final: true,
  closedEarly: false,
} as const;
