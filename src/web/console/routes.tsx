import type { Context } from "hono";
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import type { Db } from "../../store/db.js";
import { type ConsoleEnv, peerAddress, requireCsrfToken, requireSession } from "./auth.js";
import { flagRoutes } from "./flags.js";
import { logRoutes } from "./log-search.js";
import { nightRoutes } from "./nights.js";
import { SignInLimiter } from "./rate-limit.js";
import { SessionStore } from "./session-store.js";
import { signInRoutes, signOutRoute } from "./sign-in.js";
import { siteRoutes } from "./sites.js";
import { sourceRoutes } from "./sources.js";

export interface ConsoleOptions {
  now: () => number;
  /** The operator password from configuration; without it the store's hash is used. */
  password?: string;
  /** Keys the hash of session ids kept in the store (defence in depth; optional). */
  secret?: string;
  /**
   * The origin browsers reach the console at (e.g. https://nor.example.org) when it sits
   * behind a TLS-terminating proxy: the Origin check compares against it, cookies get Secure.
   */
  origin?: string;
  /** The client address failed sign-ins are counted by (default: the TCP peer). */
  clientAddress?: (c: Context) => string;
  /**
   * Where the pages read (night reports, the request log, sources, flags, sites): on SQLite a
   * pool of worker threads (src/store/read-pool.ts), so the console's biggest reads keep no
   * other request waiting. Default: `db`. Sessions and every write use `db`.
   */
  reads?: Db;
}

/**
 * Operator console routes, mounted at /console. Order matters: no caching, then hono's
 * csrf() Origin check on every POST (sign-in included), then sign-in, then the session wall,
 * then the synchronizer token on every POST, then the pages. GET never changes anything.
 */
export function consoleRoutes(db: Db, opts: ConsoleOptions): Hono {
  const app = new Hono<ConsoleEnv>();
  const sessions = new SessionStore(db, opts.secret);
  app.use("*", async (c, next) => {
    await next();
    // Signed-in pages are private; framing is refused for every page (src/web/manners.ts).
    c.header("Cache-Control", "no-store");
  });
  app.use("*", csrf(opts.origin ? { origin: opts.origin } : {}));
  signInRoutes(app, {
    db,
    now: opts.now,
    sessions,
    limiter: new SignInLimiter(),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    ...(opts.origin !== undefined ? { publicOrigin: opts.origin } : {}),
    clientAddress: opts.clientAddress ?? peerAddress,
  });
  app.use("*", requireSession(sessions, opts.now));
  app.use("*", requireCsrfToken());
  signOutRoute(app, sessions);
  const reads = opts.reads ?? db;
  nightRoutes(app, reads);
  sourceRoutes(app, db, opts.now, reads);
  flagRoutes(app, db, opts.now, reads);
  siteRoutes(app, db, opts.now, reads);
  logRoutes(app, reads);
  return app as unknown as Hono;
}
