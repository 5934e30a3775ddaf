/**
 * The public pages' heaviest answers, built in a worker thread (src/store/read-worker.ts loads
 * this module by URL and calls `runJob`): /new, its feeds and /api/new list up to 500 records,
 * the search feeds 100, the calendar 500, and turning those rows into a page, a feed or JSON
 * costs the main thread tens of milliseconds each time (docs/benchmarks.md). Here they run
 * through the very same routes (publicRoutes, without `build`), over the worker's own Db, so
 * the answer is the one the main thread would have built, byte for byte; the main thread only
 * adds its manners (headers, ETag, compression).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import { NorError } from "../../errors.js";
import type { Db } from "../../store/db.js";
import { type Answer, type AnswerJob, publicRoutes } from "./routes.js";

/** The clock and origin of the request being answered (jobs may overlap in one worker). */
const request = new AsyncLocalStorage<{ now: number; origin: string }>();

let routes: { db: Db; app: Hono } | undefined;

export async function runJob(db: Db, job: unknown): Promise<Answer> {
  const j = job as AnswerJob;
  if (routes?.db !== db) {
    const here = () => {
      const r = request.getStore();
      if (!r) throw new NorError("E_INTERNAL", "a public answer was built outside its job");
      return r;
    };
    const app = publicRoutes(db, { now: () => here().now, origin: () => here().origin });
    // A failure (a damaged store above all) is the main thread's to answer and to say, as for
    // a page read there (app.tsx onError): thrown back to it, never made a 500 here.
    app.onError((err) => {
      throw err;
    });
    routes = { db, app };
  }
  const app = routes.app;
  const res = await request.run({ now: j.now, origin: j.origin }, () =>
    app.request(new URL(j.url, "http://localhost").href),
  );
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

/**
 * This module as the workers load it: the built file beside this one, or, from the TypeScript
 * sources (the tests), its build in dist/ (test/global-build.ts builds it first).
 */
export function answerJobModule(): string {
  const here = new URL("./answer-job.js", import.meta.url);
  if (existsSync(fileURLToPath(here))) return here.href;
  const built = new URL("../../../dist/web/public/answer-job.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built.href;
  throw new NorError(
    "E_INTERNAL",
    "the public pages' builder (answer-job.js) is not built: run `npm run build`",
  );
}
