import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { openJobPool, openReadPool, workerFile } from "../../src/store/read-pool.js";

/**
 * revpool2: adversarial review of 377a7d81 (the lazy pool's three revpool defects mended) and
 * e4a9de11 (ReadPoolOptions.workerFile), src/store/read-pool.ts.
 *
 * Each defect it showed is mended; its test runs ("Was a DEFECT" says how it failed).
 *
 * Read and found sound (no test of their own): the retry timer is cleared by destroy() and
 * #growSoon/#grow's handlers do nothing once closed, so no start follows a close; a start that
 * succeeds gives its reader to the first waiter and, that query failing or not, the reader comes
 * back (kysely releases it) and #growSoon runs for the rest; init() cannot race a lazy #grow
 * (acquireConnection runs only after init resolved, kysely's and JobPool.run's alike, and a kept
 * #started never runs #open again); destroy() cannot overlap an eager init (kysely's destroy
 * awaits init; openJobPool returns only after it); one start at a time (#growing), #all never
 * past `size`; a thread starting is ref'd and terminated by close. The revpool, lazy-readers and
 * read-pool tests count threads and never time them; the one timing assumption is revpool's
 * "again and again" test (the five reads must come within GROW_RETRY_MS of the second failed
 * start, microtasks apart: a flake only under a stall of a second).
 */

/** Polls `ok` on the event loop, at most `ms` of real time; whether it came true. */
async function until(ok: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/** Whether `p` settles within `ms` of real time (polled; never a measure of speed). */
async function settledSoon(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return until(() => settled, ms);
}

const said = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e: unknown) => (e as Error).message,
  );

/** The reader's built file, missing while `missing` says so (a start then throws at once). */
let missing = false;
const readerFile = (): URL => {
  if (missing)
    throw new Error("the store's reader (read-worker.js) is not built: run `npm run build`");
  return workerFile();
};

describe("revpool2: the lazy read pool (SQLite)", () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-revpool2-"));
    store = await openStore({ kind: "sqlite", dir });
  });
  afterAll(async () => {
    missing = false;
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Was a DEFECT, mended (read-pool.ts ReaderConnection.close, line 640, and #start's exit handler, line 597;
  // #ask line 624): a query on a reader whose thread died earlier restarts it (#ask: `if (this.#dead)
  // this.#start()`) and awaits #ready; the pool closed meanwhile, close() sets #closing, so the
  // exit of the terminated thread is ignored (`if (!this.#closing) fail(...)`) and #ready never
  // settles: the query is neither answered nor failed, for ever (a request of a server shutting
  // down left pending; a JobPool.run never returns). The same for a lazily grown reader's ready()
  // (its handlers never run; harmless there, its waiters are failed by destroy). Run, it fails
  // at `expect(settled).toBe(true)` (false after 10 s).
  it("a job waiting for its reader's restart (the thread died before) when the pool closes fails with why, not left pending", async () => {
    const jobsDir = mkdtempSync(join(tmpdir(), "nor-revpool2-jobs-"));
    const jobs = join(jobsDir, "jobs.mjs");
    writeFileSync(
      jobs,
      `export async function runJob(db, job) { if (job === "die") process.exit(3); return "ok"; }\n`,
    );
    const pool = await openJobPool(
      { kind: "sqlite", dir },
      { jobs: pathToFileURL(jobs).href, workers: 1 },
    );
    try {
      // The thread dies (an out-of-memory, a job's crash): that job fails with why (fine).
      expect(await said(pool.run("die"))).toContain("stopped (exit code 3)");
      // The next job restarts it; the pool closed while the new thread starts.
      const p = pool.run("ok");
      p.catch(() => {});
      await new Promise((r) => setImmediate(r));
      await pool.close();
      const settled = await settledSoon(p, 10_000);
      expect(settled).toBe(true);
      expect(await said(p)).toMatch(/answered|closed/);
    } finally {
      await pool.close();
      rmSync(jobsDir, { recursive: true, force: true });
    }
  }, 60_000);

  // Was a DEFECT, mended (read-pool.ts #startFailed, line 490, as #grow calls it): a start that fails
  // for a moment (the reader's file missing during an in-place rebuild of dist/, a thread not to
  // be had) fails every query waiting, even when the reader that lives is merely busy with
  // another request's read and is given back a moment later: a page an eager pool (or a pool of
  // one) would have served is answered with an error (500). Failing the waiters is needed only
  // when no reader may ever be given back (the read-inside-a-held-reader case); a bounded wait
  // for a given-back reader (e.g. up to the next try, GROW_RETRY_MS) would serve this read and
  // still never hang that one. Run, it fails at `expect(second).toBe("answered")`: it is "the
  // store's reader (read-worker.js) is not built: run `npm run build`".
  it("a read waiting while the only started reader is busy (not held by it) is answered when that reader is given back, though the second reader's start failed meanwhile", async () => {
    const hold = new Int32Array(new SharedArrayBuffer(8));
    const pool = await openReadPool(dir, { readers: 2, eager: 1, hold, workerFile: readerFile });
    try {
      // The started reader busy with another request's read (held in its thread).
      Atomics.store(hold, 0, 1);
      const first = said(sql`select 1 as one`.execute(pool));
      expect(await until(() => Atomics.load(hold, 1) >= 1)).toBe(true);
      // A second read comes while the second reader's file is missing for a moment.
      missing = true;
      let second: Promise<string>;
      try {
        second = said(sql`select 2 as two`.execute(pool));
        // Every step to acquireConnection is a microtask: done before the next turn.
        await new Promise((r) => setImmediate(r));
      } finally {
        missing = false;
      }
      // The busy reader done: it is given back.
      Atomics.store(hold, 0, 0);
      Atomics.notify(hold, 0);
      expect(await first).toBe("answered");
      expect(await second).toBe("answered");
    } finally {
      missing = false;
      Atomics.store(hold, 0, 0);
      Atomics.notify(hold, 0);
      await pool.destroy();
    }
  }, 60_000);

  // Was a DEFECT, mended (read-pool.ts #growSoon line 441, #startFailed line 492: `#failedAt = Date.now()`):
  // the back-off after two failed starts is measured on the wall clock. Stepped back after them
  // (NTP, a VM resumed, an operator's `date`), `#failedAt + GROW_RETRY_MS - Date.now()` stays
  // above zero until the clock catches up: the timer fires every GROW_RETRY_MS, finds the wait
  // still positive and sets itself again, and no start is tried. A read inside a held reader
  // then waits as long as the step (an hour here), though the file is back: the "never for
  // ever, one try a second" promise holds only on a clock that never goes back
  // (performance.now() would). Run, it fails at `expect(seen.answered).toBe(true)` (false
  // after 15 s; the mended pool answers after about GROW_RETRY_MS).
  it("two failed starts while the wall clock is an hour ahead, then set back: a read inside a held reader is answered once the file is back", async () => {
    const pool = await openReadPool(dir, { readers: 2, eager: 1, workerFile: readerFile });
    try {
      const seen = await pool.connection().execute(async (held) => {
        await sql`select 1`.execute(held);
        const realNow = Date.now.bind(Date);
        const ahead = vi.spyOn(Date, "now").mockImplementation(() => realNow() + 3_600_000);
        missing = true;
        const failed: string[] = [];
        try {
          for (let i = 0; i < 2; i++) failed.push(await said(sql`select 1`.execute(pool)));
        } finally {
          missing = false;
          ahead.mockRestore();
        }
        // The clock set right (back an hour), the file back.
        const inner = sql`select 1 as one`.execute(pool);
        inner.catch(() => {});
        return { failed, answered: await settledSoon(inner, 15_000), inner };
      });
      await seen.inner.catch(() => {});
      for (const m of seen.failed) expect(m).toContain("not built");
      expect(seen.answered).toBe(true);
    } finally {
      missing = false;
      await pool.destroy();
    }
  }, 60_000);
});
