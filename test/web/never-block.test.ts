import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storePasswordHash } from "../../src/store/read/console.js";
import { openReadPool, openWebReads, type WebReads } from "../../src/store/read-pool.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { createApp } from "../../src/web/app.js";
import { answerJobModule } from "../../src/web/public/answer-job.js";
import { entry } from "../store/entries.js";
import { Browser, hashOf, PASSWORD, seedNight } from "./console-support.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * Never block: no request to the web server waits on another's SQL. The console's reads run
 * in worker threads of their own (src/store/read-pool.ts); a test hook holds the console's
 * reader at the start of its statement for as long as the test likes, so "the biggest query is
 * still running" is a state the test controls, not a race. Only the order in which answers
 * arrive is asserted, never a duration.
 */
type Served = { url: string; close(): Promise<void> };

function serveApp(app: ReturnType<typeof createApp>): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A hold shared with the readers: [0] 1 = statements wait at their start, [1] = how many did. */
function newHold(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8));
}

function letGo(hold: Int32Array): void {
  Atomics.store(hold, 0, 0);
  Atomics.notify(hold, 0);
}

/** Until `n` statements wait in the hold (a bounded loop: about 20 s at most). */
async function untilHeld(hold: Int32Array, n: number): Promise<void> {
  for (let i = 0; i < 4_000 && Atomics.load(hold, 1) < n; i++)
    await new Promise((r) => setTimeout(r, 5));
  expect(Atomics.load(hold, 1)).toBeGreaterThanOrEqual(n);
}

describe("never block (worker-thread reads)", () => {
  let f: Fixture;
  let cookie: string;
  const hold = newHold();
  let reads: WebReads;
  let served: Served;
  const owners = () => fetch(`${served.url}/site-owners`);

  beforeAll(async () => {
    f = await buildFixture();
    // The console's data: the night after the fixture's, with a no, an unreached and a flag,
    // and a log to search.
    await seedNight(f.store.db, "2026-11-06");
    const t0 = Date.UTC(2026, 10, 6, 6);
    await new SqlRequestLog(f.store.db).appendMany(
      Array.from({ length: 5_000 }, (_, i) =>
        entry({ startedAt: t0 + i * 1_000, night: "2026-11-06", site: `s${i % 9}.gov` }),
      ),
    );
    reads = await openWebReads({ kind: "sqlite", dir: f.dir }, { hold });
    expect(reads.kind).toBe("worker-threads");
    // The operator's password stored at the console fixtures' scrypt cost (console-support.ts
    // hashOf): the console's full-cost hash and check are console-cli's and browser's.
    await storePasswordHash(f.store.db, hashOf(PASSWORD), NOW);
    const app = createApp({
      db: f.store.db,
      reads,
      now: () => NOW,
      origin: ORIGIN,
      console: {},
    });
    const b = new Browser(app);
    expect((await b.signIn()).status).toBe(303);
    cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    served = await serveApp(app);
  }, 120_000);

  afterAll(async () => {
    letGo(hold);
    await served?.close();
    await reads?.close();
    await f?.close();
  });

  it("while the console's overview and a whole night's log download are held in the console's reader, /site-owners, public pages and the API answer; then the console answers in full", async () => {
    Atomics.store(hold, 1, 0);
    Atomics.store(hold, 0, 1);
    const order: string[] = [];
    const consoleGet = (path: string, name: string) =>
      fetch(`${served.url}${path}`, { headers: { cookie } }).then(async (r) => {
        // Answered in full: a download sends its head at once and its rows as they are read.
        const body = await r.text();
        order.push(name);
        return { status: r.status, body };
      });
    const overview = consoleGet("/console", "overview");
    const download = consoleGet(
      `/console/log.json?${new URLSearchParams({ since: "2026-11-06", until: "2026-11-07" })}`,
      "log.json",
    );
    // The overview's first statement waits in the reader; the download queues behind it.
    await untilHeld(hold, 1);

    const page = await owners();
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("public-records-check");
    order.push("site-owners");
    const gov = await fetch(`${served.url}/governments/village-of-test`);
    expect(gov.status).toBe(200);
    expect(await gov.text()).toContain("Council agendas");
    order.push("government page");
    const api = await fetch(`${served.url}/api/governments`);
    expect(api.status).toBe(200);
    expect(((await api.json()) as { governments: unknown[] }).governments).toHaveLength(5);
    order.push("api");
    const news = await fetch(`${served.url}/new`);
    expect(news.status).toBe(200);
    order.push("new");
    // Everything public answered while the console's read was still held.
    expect(order).toEqual(["site-owners", "government page", "api", "new"]);
    expect(Atomics.load(hold, 1)).toBe(1);

    letGo(hold);
    const [o, d] = await Promise.all([overview, download]);
    expect(order.slice(4).sort()).toEqual(["log.json", "overview"]);
    expect(o.status).toBe(200);
    expect(o.body).toContain("2026-11-06");
    expect(o.body).toContain("oh-b-bids");
    expect(o.body).toContain("8f1e2a3b4c5d6e7f");
    expect(d.status).toBe(200);
    expect((JSON.parse(d.body) as { count: number }).count).toBe(5_000);
  });

  it("/new, its feeds and /api/new are built in a worker thread (the builder): while it is held there, the other pages answer; then the same answer as the event loop builds", async () => {
    const buildHold = newHold();
    const built = await openWebReads(
      { kind: "sqlite", dir: f.dir },
      { jobs: answerJobModule(), buildHold },
    );
    const app = createApp({ db: f.store.db, reads: built, now: () => NOW, origin: ORIGIN });
    const s = await serveApp(app);
    try {
      Atomics.store(buildHold, 0, 1);
      const answered: string[] = [];
      const heavy = ["/new?window=30d", "/new.atom", "/api/new"].map((p) =>
        fetch(`${s.url}${p}`).then(async (r) => {
          answered.push(p);
          return { status: r.status, body: await r.text() };
        }),
      );
      // The first job waits at its start in the builder; the others queue for it.
      await untilHeld(buildHold, 1);
      for (const p of ["/site-owners", "/governments/village-of-test", "/sources/test-bids", "/"]) {
        const r = await fetch(`${s.url}${p}`);
        expect(r.status, p).toBe(200);
        await r.arrayBuffer();
      }
      expect(answered).toEqual([]);
      expect(Atomics.load(buildHold, 1)).toBe(1);
      letGo(buildHold);
      const here = createApp({ db: f.store.db, now: () => NOW, origin: ORIGIN });
      const got = await Promise.all(heavy);
      for (const [i, p] of ["/new?window=30d", "/new.atom", "/api/new"].entries()) {
        expect(got[i]?.status, p).toBe(200);
        expect(got[i]?.body, p).toBe(await (await here.request(p)).text());
      }
    } finally {
      letGo(buildHold);
      await s.close();
      await built.close();
    }
  });

  it("the hold is real: a public page whose reads share the held reader waits for it, while /site-owners (no SQL) answers", async () => {
    const shared = newHold();
    const pool = await openReadPool(f.dir, { hold: shared });
    const app = createApp({
      db: f.store.db,
      reads: { public: pool, console: pool },
      now: () => NOW,
    });
    const s = await serveApp(app);
    try {
      Atomics.store(shared, 0, 1);
      let govDone = false;
      const gov = fetch(`${s.url}/governments/village-of-test`).then(async (r) => {
        govDone = true;
        return r.status;
      });
      await untilHeld(shared, 1);
      expect((await fetch(`${s.url}/site-owners`)).status).toBe(200);
      expect(govDone).toBe(false);
      letGo(shared);
      expect(await gov).toBe(200);
    } finally {
      letGo(shared);
      await s.close();
      await pool.destroy();
    }
  });
});
