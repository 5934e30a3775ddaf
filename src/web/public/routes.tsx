import { Hono } from "hono";
import type { Db } from "../../store/db.js";

/** Public directory routes (owned by the directory module). */
export function publicRoutes(_db: Db, _opts: { now: () => number }): Hono {
  const app = new Hono();
  return app;
}
