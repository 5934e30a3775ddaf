import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { StoreLocation } from "../../src/store/db.js";
import { HOLDER_ALIVE_CLASS, holderKey } from "../../src/store/holder-liveness.js";
import { runNorAsync } from "../cli/run-nor.js";
import { startFleet } from "../fleet/fleet.js";
import { postgresFactory } from "../store/stores.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * A `nor night` on PostgreSQL says its lease holder lives on a connection of its own
 * (store/holder-liveness.ts), so another machine never takes its site over while it is frozen in
 * the middle of a slow body (P9, P10): shown by what every other process sees, `pg_locks`, while
 * its request is in flight, and gone once the night is over.
 */
const base = process.env["NOR_TEST_POSTGRES_URL"];
const factory = base ? postgresFactory(base) : undefined;
const dir = mkdtempSync(join(tmpdir(), "nor-live-pg-"));
afterAll(async () => {
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("a night's lease holder alive on PostgreSQL", () => {
  it.skipIf(!factory)(
    "P9, P10: while its request drips, the night's holder holds its liveness lock (seen in pg_locks, on an idle session of its own); none is left once it ends",
    async () => {
      const loc = (await factory?.fresh()) as StoreLocation & { url: string };
      const fleet = await startFleet();
      const q = new pg.Client({ connectionString: loc.url });
      await q.connect();
      let release!: () => void;
      const released = new Promise<void>((r) => {
        release = r;
      });
      try {
        const site = await fleet.server();
        site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        site.route("/feed/slow.xml", (_q, res) => {
          const body = rss(site.origin, 1);
          res.writeHead(200, { "content-type": "application/rss+xml" });
          res.write(body.slice(0, 20));
          void released.then(() => res.end(body.slice(20)));
        });
        const catalog = writeCatalog(dir, [feedEntry("slow", site.url("/feed/slow.xml"))]);
        const run = runNorAsync(
          [
            ...["night", "--catalog", catalog, "--data", join(dir, "data"), "--night"],
            ...["2026-11-05", "--allow-private-addresses", "--gap-ms", "50"],
          ],
          { env: { NOR_DATABASE_URL: loc.url }, timeoutMs: 60_000 },
        );
        let holder: string | undefined;
        try {
          // The feed's request in flight (bounded: the night's own timeout ends it otherwise).
          for (let i = 0; i < 600 && holder === undefined; i++) {
            const rows = await q
              .query(
                "select holder from request_log where outcome = 'in-flight' and url like '%/feed/slow.xml'",
              )
              .catch(() => ({ rows: [] as { holder: string }[] }));
            holder = (rows.rows as { holder: string }[])[0]?.holder;
            if (holder === undefined) await new Promise((r) => setTimeout(r, 50));
          }
          if (holder === undefined) throw new Error("the feed's request never went");
          const lockers = (
            await q.query(
              "select a.application_name as app, a.state, a.pid <> pg_backend_pid() as other from pg_locks l join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory' and l.granted and l.classid = $1::int4::oid and l.objid::int8 = $2::int8 and l.objsubid = 2",
              [HOLDER_ALIVE_CLASS, holderKey(holder) >>> 0],
            )
          ).rows;
          expect(lockers).toEqual([{ app: "nor holder alive", state: "idle", other: true }]);
        } finally {
          release();
        }
        const r = await run;
        expect(r.code, r.stderr).toBe(0);
        // Its session ended with the process (or the store's close before): its lock is gone.
        let left = 1;
        for (let i = 0; i < 100 && left > 0; i++) {
          const found = await q.query(
            "select 1 from pg_locks where locktype = 'advisory' and classid = $1::int4::oid and objid::int8 = $2::int8",
            [HOLDER_ALIVE_CLASS, holderKey(holder ?? "") >>> 0],
          );
          left = found.rowCount ?? 0;
          if (left > 0) await new Promise((r) => setTimeout(r, 20));
        }
        expect(left).toBe(0);
      } finally {
        release();
        await q.end();
        await fleet.close();
      }
    },
    120_000,
  );
});
