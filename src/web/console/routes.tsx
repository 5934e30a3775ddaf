import { Hono } from "hono";
import type { Db } from "../../store/db.js";

/** Operator console routes, mounted at /console (owned by the console module). */
export function consoleRoutes(
  _db: Db,
  _opts: { now: () => number; password?: string; secret?: string },
): Hono {
  const app = new Hono();
  return app;
}
