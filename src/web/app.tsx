import { type Context, Hono } from "hono";
import { DEFAULT_USER_AGENT } from "../policy/constants.js";
import type { Db } from "../store/db.js";
import { consoleRoutes } from "./console/routes.js";
import { publicRoutes } from "./public/routes.js";
import { SiteOwnersPage } from "./site-owners.js";

export interface WebOptions {
  /** The User-Agent the checker is configured with (P1), shown on the site-owner page (P2). */
  userAgent?: string;
  /** The store; without one only the static pages are served. */
  db?: Db;
  /** The clock for "since yesterday" and sessions (tests pass a fixed one). */
  now?: () => number;
  /** Operator console settings (src/web/console). */
  console?: {
    password?: string;
    secret?: string;
    /** Public origin behind a TLS proxy (Origin check, Secure cookies). */
    origin?: string;
    /** How to read the client address failed sign-ins are counted by. */
    clientAddress?: (c: Context) => string;
  };
}

/** The directory: public pages, feeds, JSON API, and the operator's console under /console. */
export function createApp(opts: WebOptions = {}): Hono {
  const app = new Hono();
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const now = opts.now ?? (() => Date.now());
  app.get("/site-owners", (c) => c.html(<SiteOwnersPage userAgent={userAgent} />));
  if (opts.db) {
    app.route("/", publicRoutes(opts.db, { now }));
    app.route("/console", consoleRoutes(opts.db, { now, ...(opts.console ?? {}) }));
  } else {
    app.get("/", (c) => c.redirect("/site-owners"));
  }
  return app;
}
