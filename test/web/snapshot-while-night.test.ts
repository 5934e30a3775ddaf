import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "../../src/store/kysely.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { openWebReads } from "../../src/store/read-pool.js";
import { createApp } from "../../src/web/app.js";
import { answerJobModule } from "../../src/web/public/answer-job.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, type Fixture, ORIGIN } from "./fixture.js";

/**
 * The snapshots of the public pages as `nor serve` reads them (src/store/read/snapshot.ts): /new
 * and /api/new built in the builder's worker thread, the front page and a search on the public
 * readers, over a real HTTP server, while a night commits record after record. Each page's count
 * agrees with its list, each page after a commit sees it (no reader or builder is left in an old
 * snapshot), and on SQLite, once the pages are answered, the WAL is checkpointed to nothing (no
 * reader holds a snapshot open).
 */
const stores = storeFactories();

/** Nights after the fixture's, one commit of akron-minutes each; the pages read on the last. */
const LATER = ["2026-11-06", "2026-11-07", "2026-11-08", "2026-11-09"] as const;
const COMMITS = LATER.length;
const LATER_NOW = Date.parse("2026-11-09T15:00:00.000Z");

/** One new record on akron-minutes, committed on the later night `i`. */
async function commitNewRecord(f: Fixture, i: number, n: number): Promise<void> {
  const night = new SqlNightStore(f.store.db);
  const day = LATER[i] ?? LATER[0];
  const at = Date.parse(`${day}T06:00:00.000Z`) + n;
  await night.openNight(day, at, at + 6 * 3_600_000);
  const c = await night.commit(day, {
    sourceId: "akron-minutes",
    outcome: { kind: "ok", url: "https://akron.example/minutes" },
    // The page as it lists them: its older record, those committed before, and this one.
    records: [40, ...Array.from({ length: n - 1000 }, (_, k) => 1001 + k)].map((k) => ({
      id: `https://akron.example/r/${k}`,
      title: `Record ${k}`,
      date: "2026-11-01",
      url: `https://akron.example/r/${k}`,
    })),
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  expect(c.newRecords, `${n}: ${JSON.stringify(c)}`).toBe(1);
  await night.finishNight(day, at + 3_600_000);
}

type NewJson = { counts: { total: number }; items: { recordId: string }[] };
type SearchJson = { recordTotal: number; records: unknown[] };

describe.each(stores)("the public pages' snapshots while a night commits ($name)", (factory) => {
  const open: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  it("every page after a commit lists it, its count agreeing; the WAL checkpoints after", async () => {
    const loc = factory.name === "sqlite" ? undefined : await factory.fresh();
    const f = await buildFixture(loc);
    open.push(() => f.close());
    const reads = await openWebReads(loc ?? { kind: "sqlite", dir: f.dir }, {
      jobs: answerJobModule(),
    });
    open.push(() => reads.close());
    const app = createApp({ db: f.store.db, reads, now: () => LATER_NOW, origin: ORIGIN });
    const url = await new Promise<string>((resolve) => {
      const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
        resolve(`http://127.0.0.1:${(info as AddressInfo).port}`),
      );
      open.push(
        () =>
          new Promise((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      );
    });
    const get = async (path: string) => {
      const r = await fetch(`${url}${path}`);
      expect(r.status, path).toBe(200);
      return r;
    };
    let total = ((await (await get("/api/new?window=30d")).json()) as NewJson).counts.total;
    for (let n = 1; n <= COMMITS; n++) {
      // Pages read while the commit is under way, then after it.
      const during = [
        get("/api/new?window=30d"),
        get("/"),
        get("/api/search?q=record"),
        get("/new?window=30d"),
      ];
      await commitNewRecord(f, n - 1, 1000 + n);
      const pages = await Promise.all(during);
      const mid = (await pages[0]?.json()) as NewJson;
      expect(mid.counts.total).toBe(mid.items.length);
      const midSearch = (await pages[2]?.json()) as SearchJson;
      expect(midSearch.recordTotal).toBeGreaterThan(0);
      for (const p of [pages[1], pages[3]]) await p?.arrayBuffer();

      const after = (await (await get("/api/new?window=30d")).json()) as NewJson;
      expect(after.items.map((i) => i.recordId)).toContain(`https://akron.example/r/${1000 + n}`);
      expect(after.counts.total).toBe(total + 1);
      expect(after.counts.total).toBe(after.items.length);
      total = after.counts.total;
      const s = (await (await get("/api/search?q=record")).json()) as SearchJson;
      expect(s.recordTotal).toBe(s.records.length);
    }
    if (factory.name === "sqlite") {
      const r = await sql<{ busy: number; log: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(
        f.store.db,
      );
      expect(r.rows[0]).toMatchObject({ busy: 0, log: 0 });
    }
  });
});
