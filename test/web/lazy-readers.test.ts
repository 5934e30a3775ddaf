import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import { sql } from "../../src/store/kysely.js";
import { storePasswordHash } from "../../src/store/read/console.js";
import { openJobPool, openWebReads, type WebReads } from "../../src/store/read-pool.js";
import { createApp } from "../../src/web/app.js";
import { answerJobModule } from "../../src/web/public/answer-job.js";
import { Browser, hashOf, PASSWORD } from "./console-support.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * The web's worker threads start when they are first needed (src/store/read-pool.ts): one
 * public reader with the server (a store it cannot read is still a startup error), the second
 * public reader when a page finds the first busy, the console's reader with the first console
 * page, the builder with the first answer it builds. Counted through WebReads.threads(), never
 * timed.
 */
describe("the web's readers, started on first demand (SQLite)", () => {
  let f: Fixture;
  let reads: WebReads;
  let cookie: string;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    f = await buildFixture();
    await storePasswordHash(f.store.db, hashOf(PASSWORD), NOW);
    reads = await openWebReads({ kind: "sqlite", dir: f.dir }, { jobs: answerJobModule() });
  }, 120_000);

  afterAll(async () => {
    await reads?.close();
    await f?.close();
  });

  it("one thread right after the reads open; then one more for each pool a page first needs, four at most however many pages are asked at once", async () => {
    expect(reads.kind).toBe("worker-threads");
    expect(reads.threads?.()).toBe(1);
    app = createApp({ db: f.store.db, reads, now: () => NOW, origin: ORIGIN, console: {} });

    // The only public reader held (as a page's snapshot holds it): a page asked meanwhile is
    // answered by a second reader started for it.
    const page = await reads.public.connection().execute(async () => {
      expect(reads.threads?.()).toBe(1);
      const r = await app.request("/governments/village-of-test");
      return { status: r.status, body: await r.text() };
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Council agendas");
    expect(reads.threads?.()).toBe(2);

    // The builder, with the first answer it builds.
    const news = await app.request("/new");
    expect(news.status).toBe(200);
    expect(reads.threads?.()).toBe(3);

    // The console's reader, with the first console page.
    const b = new Browser(app);
    expect((await b.signIn()).status).toBe(303);
    cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const overview = await app.request("/console", { headers: { cookie } });
    expect(overview.status).toBe(200);
    expect(reads.threads?.()).toBe(4);

    // Many pages at once: every one answered, no thread more.
    const paths = ["/", "/governments/village-of-test", "/sources/test-bids", "/api/governments"];
    const got = await Promise.all(
      Array.from({ length: 12 }, (_, i) => paths[i % paths.length] as string).map(async (p) => {
        const r = await app.request(p);
        await r.arrayBuffer();
        return r.status;
      }),
    );
    expect(got).toEqual(Array.from({ length: 12 }, () => 200));
    expect(reads.threads?.()).toBe(4);
  });

  it("readers held at once, more than are started: each one more starts, up to the pool's size, and every read is answered", async () => {
    const three = await openWebReads({ kind: "sqlite", dir: f.dir }, { publicReaders: 3 });
    try {
      expect(three.threads?.()).toBe(1);
      const answers = await three.public.connection().execute(async () => {
        // Two more readers held together (each waits for the other inside its own), while the
        // first is held here: only a third started on demand lets both in.
        let inside = 0;
        let bothIn: () => void = () => {};
        const together = new Promise<void>((r) => {
          bothIn = r;
        });
        const held = () =>
          three.public.connection().execute(async (conn) => {
            const { rows } = await sql<{
              n: number;
            }>`select count(*) as n from governments`.execute(conn);
            if (++inside === 2) bothIn();
            await together;
            return rows[0]?.n;
          });
        return Promise.all([held(), held()]);
      });
      expect(answers).toEqual([5, 5]);
      expect(three.threads?.()).toBe(3);
    } finally {
      await three.close();
    }
  }, 60_000);

  it("a pool started on demand over a directory it cannot read says why to the job that asked, not a hang", async () => {
    const empty = mkdtempSync(join(tmpdir(), "nor-lazy-readers-none-"));
    const pool = await openJobPool(
      { kind: "sqlite", dir: empty },
      { jobs: answerJobModule(), eager: 0 },
    );
    try {
      expect(pool.threads()).toBe(0);
      const err = await pool.run({}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NorError);
      expect((err as NorError).message).toContain("cannot open a reader of the store");
      expect(pool.threads()).toBe(0);
    } finally {
      await pool.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
