import type { KyselyPlugin, RootOperationNode } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openPostgresPool } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { openReadPool } from "../../src/store/read-pool.js";
import { publicRoutes } from "../../src/web/public/routes.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, commitNewRecord, NOW, ORIGIN } from "./fixture.js";

/**
 * A page's snapshot (src/store/read/snapshot.ts) that fails part-way leaves its reader as it
 * found it: outside any transaction. A reader of the web's pool left inside its snapshot would
 * show every later page the state of that moment, refuse every later snapshot ('cannot start a
 * transaction within a transaction'), and keep the night's WAL from being checkpointed. Here one
 * step of a snapshot fails (a plugin on the web's reads throws on its answer): the begin's, the
 * first list's, the commit's; then a night commits, the WAL is checkpointed to nothing, and the
 * next pages see the new record. The web's reads have one connection, so the next page has the
 * same reader.
 */
const stores = storeFactories();

type Step = "begin" | "first list" | "commit";

function failOnce(db: Db, step: Step): { db: Db; fired: () => boolean } {
  let fired = false;
  const raw = new Map<unknown, string>();
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      const n = node as RootOperationNode & { kind: string; sqlFragments?: readonly string[] };
      if (n.kind === "RawNode") raw.set(queryId, (n.sqlFragments ?? []).join("").trim());
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      const text = raw.get(queryId);
      const hit =
        step === "first list"
          ? result.rows.some((r) => typeof r === "object" && r !== null && "record_id" in r)
          : text === step;
      if (!fired && hit) {
        fired = true;
        throw new Error(`the ${step}'s answer was lost`);
      }
      return result;
    },
  };
  return { db: db.withPlugin(plugin), fired: () => fired };
}

type NewJson = { counts: { total: number }; items: { recordId: string }[] };

describe.each(stores)("a page's snapshot that fails part-way ($name)", (factory) => {
  const open: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  async function setUp() {
    const loc = factory.name === "sqlite" ? undefined : await factory.fresh();
    const f = await buildFixture(loc);
    open.push(() => f.close());
    const reads =
      loc?.kind === "postgres"
        ? await openPostgresPool(loc.url, 1, "nor-test-snapshot-fails")
        : await openReadPool(f.dir, { readers: 1 });
    open.push(() => reads.destroy());
    return { f, reads };
  }

  // PostgreSQL's begin and commit are the driver's own (kysely's transaction), never a
  // statement a plugin sees: there only a read can fail.
  const steps: Step[] =
    factory.name === "sqlite" ? ["begin", "first list", "commit"] : ["first list"];

  it.each(steps)(
    "its reader is left outside any transaction: the next page sees a night's new record, the WAL checkpoints (the %s's answer lost)",
    async (step) => {
      const { f, reads } = await setUp();
      const hooked = failOnce(reads, step);
      const app = publicRoutes(hooked.db, { now: () => NOW, origin: () => ORIGIN });
      const failed = await app.request("/api/new");
      expect(hooked.fired()).toBe(true);
      expect(failed.status).toBe(500);

      const first = await app.request("/api/new");
      expect(first.status).toBe(200);
      const before = (await first.json()) as NewJson;
      await commitNewRecord(f, 905);
      if (factory.name === "sqlite") {
        // No reader holds a snapshot: the whole WAL is copied back and emptied.
        const r = await sql<{
          busy: number;
          log: number;
        }>`pragma wal_checkpoint(TRUNCATE)`.execute(f.store.db);
        expect(r.rows[0]).toMatchObject({ busy: 0, log: 0 });
      }
      const next = await app.request("/api/new");
      expect(next.status).toBe(200);
      const after = (await next.json()) as NewJson;
      expect(after.items.map((i) => i.recordId)).toContain("https://akron.example/r/905");
      expect(after.counts.total).toBe(before.counts.total + 1);
      const found = await app.request("/api/search?q=record");
      expect(found.status).toBe(200);
    },
  );
});
