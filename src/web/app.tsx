import { Hono } from "hono";
import { DEFAULT_USER_AGENT } from "../policy/constants.js";
import { SiteOwnersPage } from "./site-owners.js";

export interface WebOptions {
  /** The User-Agent the checker is configured with (P1), shown on the site-owner page (P2). */
  userAgent?: string;
}

/** The public directory. Tested in-process with `app.request(path)`. */
export function createApp(opts: WebOptions = {}): Hono {
  const app = new Hono();
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  app.get("/site-owners", (c) => c.html(<SiteOwnersPage userAgent={userAgent} />));
  app.get("/", (c) => c.redirect("/site-owners"));
  return app;
}
