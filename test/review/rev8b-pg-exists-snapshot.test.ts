/**
 * Review 8 (second pass): admission on PostgreSQL after waiting for the site's row lock
 * (bfe494b: "the site's row is locked with whether owner's rules or earlier attempts exist").
 * PostgreSQL, READ COMMITTED: a `SELECT … FOR UPDATE` that waits for another transaction's
 * lock returns the row as that transaction committed it, but every other expression of the
 * statement, the EXISTS subqueries included, is read in the snapshot the statement took
 * before it waited. So when worker B's admission waits on worker A's completion of the same
 * request (A's answer, final, now committed) it gets the site as A left it (lease let go, the
 * gap counted from A's end) together with "no earlier attempt tonight": the attempts are not
 * read, and the answer A received in full is asked again (P8); a 500 that used its retries
 * would start its count again (P15).
 *
 * Here A's completion (the same two writes as SqlJournal.complete) stays open until B's
 * admission is seen waiting for the lock (pg_locks), then commits. B decides 10 s after A's
 * end, past the gap, as when A's archive and group commit take longer than the gap, or a gap
 * shorter than the floor towards loopback.
 *
 * Failed on main at 612669d, before the fix (it passed with bfe494b^'s journal.ts, and passes now): B was told "go" and
 * writes a second row. Suggested fix: on PostgreSQL read the attempts (and the rules) in a
 * statement after the one that locks (in READ COMMITTED each statement takes a new snapshot),
 * e.g. the lock alone, then one statement for both EXISTS (two round trips, not three); on
 * SQLite the write lock is taken before the first read, so there the one statement is right.
 */
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const intent: SendIntent = {
  night: "2026-11-05",
  key: "agendas-key",
  method: "GET",
  url: "https://www.village.example.gov/agendas",
  site: "example.gov",
  origin: "https://www.village.example.gov",
  purpose: "page",
  gapMs: 2_000,
  replayAllowed: true,
};

it.skipIf(!factory)(
  "P8, P15: an admission that waited for the site's lock sees the attempt the lock's holder just completed",
  async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error("expected PostgreSQL");
    const a = await openStore(loc);
    const b = await openStore(loc);
    const watcher = new pg.Client({ connectionString: loc.url });
    await watcher.connect();
    try {
      const ja = new SqlJournal(a.db);
      const jb = new SqlJournal(b.db);
      const first = await ja.admit(intent, "host-a:1:aaaa", T0);
      if (first.kind !== "go") throw new Error(`expected go, got ${first.kind}`);
      const endedAt = T0 + 300;
      let decided: string | undefined;
      await a.db.transaction().execute(async (tx) => {
        // A completes its request: the answer is final, the lease let go, the end recorded.
        await tx
          .updateTable("request_log")
          .set({
            ended_at: new Date(endedAt).toISOString(),
            status: 200,
            outcome: "ok",
            final: 1,
            answer: JSON.stringify({
              kind: "failure",
              failure: "other",
              message: "x",
              startedAt: T0,
              endedAt,
              attempt: 1,
              priorAllClosed: false,
            }),
          })
          .where("id", "=", Number(first.id))
          .execute();
        await tx
          .updateTable("site_state")
          .set({
            last_end_at: new Date(endedAt).toISOString(),
            lease_holder: null,
            lease_until: null,
          })
          .where("site", "=", intent.site)
          .execute();
        // B asks meanwhile (10 s after A's end) and waits for the site's row.
        void jb.admit(intent, "host-b:2:bbbb", endedAt + 10_000).then(
          (r) => {
            decided = r.kind;
          },
          (err: unknown) => {
            decided = `threw: ${String(err)}`;
          },
        );
        for (let i = 0; i < 400; i++) {
          const waiting = await watcher.query(
            "select count(*)::int as n from pg_locks where not granted",
          );
          if ((waiting.rows[0] as { n: number }).n > 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
      });
      for (let i = 0; i < 400 && decided === undefined; i++)
        await new Promise((r) => setTimeout(r, 10));
      const rows = await a.db.selectFrom("request_log").select(["holder", "outcome"]).execute();
      expect({ decided, rows: rows.length }).toEqual({ decided: "answered", rows: 1 });
    } finally {
      await watcher.end();
      await a.close();
      await b.close();
    }
  },
);
