import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { runNorAsync } from "../cli/run-nor.js";
import { startFleet } from "../fleet/fleet.js";
import { postgresFactory } from "../store/stores.js";
import { rss, writeCatalog } from "./cli-night.js";

/**
 * 9e15ea2 on PostgreSQL: a copy's capture row is queued in the journal's group commit ahead of
 * its request's completion. A row the store refuses (here a trigger, as a full tablespace or a
 * constraint would) stops the night as the archive's failure, every request's row completed.
 */
const base = process.env["NOR_TEST_POSTGRES_URL"];
const factory = base ? postgresFactory(base) : undefined;
const dir = mkdtempSync(join(tmpdir(), "nor-gc-pg-"));
afterAll(async () => {
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("capture rows in the journal's group commit, on PostgreSQL", () => {
  it.skipIf(!factory)(
    "P8, P27: a capture row the store refuses stops the night as the archive's failure, every request's row completed, no capture kept; resumed, every feed is read and kept",
    async () => {
      const loc = (await factory?.fresh()) as StoreLocation & { url: string };
      const store = await openStore(loc);
      await store.close();
      const c = new pg.Client({ connectionString: loc.url });
      await c.connect();
      try {
        await c.query(
          "create function refuse_capture() returns trigger language plpgsql as $$ begin raise exception 'no room (the test''s)'; end $$",
        );
        await c.query(
          "create trigger refuse_capture before insert on captures for each row execute function refuse_capture()",
        );
      } finally {
        await c.end();
      }
      const fleet = await startFleet();
      try {
        const site = await fleet.server();
        site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        for (const n of [1, 2, 3])
          site.route(`/feed/${n}.xml`, (_q, res) => {
            res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(site.origin, 2));
          });
        const catalog = writeCatalog(
          dir,
          [1, 2, 3].map((n) => [
            `id: feed-${n}`,
            "government: village-of-test",
            "records: agendas",
            "access: feed",
            `url: ${site.url(`/feed/${n}.xml`)}`,
          ]),
        );
        // Separate processes: the second resumes once the first is gone (a live holder of
        // this host keeps its lanes, store/holder.ts).
        const r = await runNorAsync(
          [
            ...["night", "--catalog", catalog, "--data", join(dir, "data"), "--night"],
            ...["2026-11-05", "--allow-private-addresses", "--gap-ms", "50"],
          ],
          { env: { NOR_DATABASE_URL: loc.url }, timeoutMs: 60_000 },
        );
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.stderr).toMatch(/could not be kept in the archive \(P8\)/);
        const q = new pg.Client({ connectionString: loc.url });
        await q.connect();
        try {
          const rows = (await q.query("select outcome, ended_at from request_log")).rows as {
            outcome: string;
            ended_at: unknown;
          }[];
          expect(rows.length).toBeGreaterThan(0);
          expect(rows.filter((x) => x.outcome === "in-flight" || x.ended_at === null)).toEqual([]);
          expect((await q.query("select count(*)::int as n from captures")).rows).toEqual([
            { n: 0 },
          ]);
          // The store takes rows again: the night resumed reads every feed, each one's copy
          // kept, a completed answer whose copy was never indexed asked again, not replayed
          // without its body.
          await q.query("drop trigger refuse_capture on captures");
          // Resumed, as after the operator mends the store.
          const again = await runNorAsync(
            [
              ...["night", "--catalog", catalog, "--data", join(dir, "data"), "--night"],
              ...["2026-11-05", "--allow-private-addresses", "--gap-ms", "50"],
            ],
            { env: { NOR_DATABASE_URL: loc.url }, timeoutMs: 60_000 },
          );
          expect(again.code, again.stderr).toBe(0);
          const sources = (
            await q.query("select source_id, outcome from night_sources order by source_id")
          ).rows;
          expect(sources).toEqual(
            [1, 2, 3].map((n) => ({ source_id: `feed-${n}`, outcome: "ok" })),
          );
          const kept = (await q.query("select distinct url from captures where status = 200"))
            .rows as { url: string }[];
          for (const n of [1, 2, 3])
            expect(kept.map((k) => k.url)).toContain(site.url(`/feed/${n}.xml`));
        } finally {
          await q.end();
        }
      } finally {
        await fleet.close();
      }
    },
    120_000,
  );
});
