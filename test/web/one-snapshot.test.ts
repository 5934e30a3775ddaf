import { load } from "cheerio";
import type { KyselyPlugin } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openPostgresPool } from "../../src/store/db.js";
import { openReadPool } from "../../src/store/read-pool.js";
import { publicRoutes } from "../../src/web/public/routes.js";
import { storeFactories } from "../store/stores.js";
import { buildFixture, commitNewRecord, NOW, ORIGIN } from "./fixture.js";

/**
 * The directory's /new and search, while a night commits: a page's count and the list it counts
 * are read in one snapshot (src/store/read/snapshot.ts). Each used to be read apart (parallel
 * reads on the web's read pool, a search's page and its total one after the other), so a record
 * a night committed between the two statements was counted and not listed. Here the commit is
 * put between them, deterministically: a plugin on the web's reads commits a new record, through
 * the store's own connection, as soon as the first statement that lists records has answered.
 * The web's reads have one connection, so without one snapshot the next statement (the counts,
 * the total) always runs after that commit.
 */
const stores = storeFactories();

/** A Db whose first answer holding records waits for `commit` before it is handed on. */
function commitAfterFirstList(
  db: Db,
  commit: () => Promise<void>,
): { db: Db; fired: () => boolean } {
  let fired = false;
  const plugin: KyselyPlugin = {
    transformQuery: (a) => a.node,
    transformResult: async ({ result }) => {
      const lists = result.rows.some(
        (r) => typeof r === "object" && r !== null && "record_id" in r,
      );
      if (!fired && lists) {
        fired = true;
        await commit();
      }
      return result;
    },
  };
  return { db: db.withPlugin(plugin), fired: () => fired };
}

describe.each(stores)("one snapshot for a page's count and its list ($name)", (factory) => {
  const open: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });

  /** The fixture, and the web's reads over one connection of their own (as `nor serve`'s). */
  async function setUp() {
    const loc = factory.name === "sqlite" ? undefined : await factory.fresh();
    const f = await buildFixture(loc);
    open.push(() => f.close());
    const reads =
      loc?.kind === "postgres"
        ? await openPostgresPool(loc.url, 1, "nor-test-snapshot")
        : await openReadPool(f.dir, { readers: 1 });
    open.push(() => reads.destroy());
    return { f, reads };
  }

  it("/api/new: the counts count the records listed, though a night commits between the reads", async () => {
    const { f, reads } = await setUp();
    const hooked = commitAfterFirstList(reads, () => commitNewRecord(f, 901));
    const app = publicRoutes(hooked.db, { now: () => NOW, origin: () => ORIGIN });
    const res = await app.request("/api/new");
    expect(res.status).toBe(200);
    expect(hooked.fired()).toBe(true);
    const body = (await res.json()) as { counts: { total: number }; items: { recordId: string }[] };
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.counts.total).toBe(body.items.length);
    // The next page read sees the record, in its counts and its list alike.
    const after = (await (await app.request("/api/new")).json()) as typeof body;
    expect(after.items.map((i) => i.recordId)).toContain("https://akron.example/r/901");
    expect(after.counts.total).toBe(after.items.length);
    expect(after.counts.total).toBe(body.counts.total + 1);
  });

  it("/new: the page's count says as many records as it lists", async () => {
    const { f, reads } = await setUp();
    const hooked = commitAfterFirstList(reads, () => commitNewRecord(f, 902));
    const app = publicRoutes(hooked.db, { now: () => NOW, origin: () => ORIGIN });
    const page = await app.request("/new");
    expect(page.status).toBe(200);
    expect(hooked.fired()).toBe(true);
    const $ = load(await page.text());
    const listed = $("table.new tbody tr").length;
    expect(listed).toBeGreaterThan(0);
    expect($("p.window").text()).toContain(`${listed} new records`);
    expect($("details.counts summary").text()).toBe(
      `${listed} new: by county and by kind of records`,
    );
  });

  it("/api/search: the total counts the records its pages list, though a night commits between", async () => {
    const { f, reads } = await setUp();
    const hooked = commitAfterFirstList(reads, () => commitNewRecord(f, 903));
    const app = publicRoutes(hooked.db, { now: () => NOW, origin: () => ORIGIN });
    const res = await app.request("/api/search?q=record");
    expect(res.status).toBe(200);
    expect(hooked.fired()).toBe(true);
    const body = (await res.json()) as { recordTotal: number; records: { recordId: string }[] };
    expect(body.records.length).toBeGreaterThan(0);
    expect(body.records.length).toBeLessThan(20);
    expect(body.recordTotal).toBe(body.records.length);
    const after = (await (await app.request("/api/search?q=record")).json()) as typeof body;
    expect(after.recordTotal).toBe(body.recordTotal + 1);
    expect(after.records.length).toBe(after.recordTotal);
  });
});
