import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { NorError } from "../errors.js";
import { DEFAULT_USER_AGENT } from "../policy/constants.js";
import { lastNightUserAgent } from "../store/admin.js";
import { type Db, storeDamageOf } from "../store/db.js";
import { consoleRoutes } from "./console/routes.js";
import { Layout } from "./layout.js";
import { bodyCap, caching, securityHeaders, staticRoutes } from "./manners.js";
import { echo } from "./public/echo.js";
import { pageReads } from "./public/filters.js";
import { badRequestPage, MessagePage } from "./public/pages/errors.js";
import {
  ALLOW,
  type Answer,
  type AnswerJob,
  getOnly,
  namesFile,
  publicRoutes,
} from "./public/routes.js";
import { SiteOwnersPage } from "./site-owners.js";

export interface ConsoleSettings {
  password?: string;
  secret?: string;
  /** Public origin behind a TLS proxy (Origin check, Secure cookies). */
  origin?: string;
  /** How to read the client address sign-ins are counted by. */
  clientAddress?: (c: Context) => string;
}

export interface WebOptions {
  /** The User-Agent the checker is configured with (P1), shown on the site-owner page (P2). */
  userAgent?: string;
  /**
   * Who runs the checker (`--operator-name`), named on the site-owner page beside the contact
   * in a User-Agent of the operator's own; never shown with the built-in User-Agent.
   */
  operatorName?: string;
  /** The store; without one only the static pages are served. */
  db?: Db;
  /**
   * Where the pages read, off the event loop (src/store/read-pool.ts `openWebReads`): worker
   * threads on SQLite, so no request waits while another's SQL runs; the public pages and the
   * console read from pools of their own (connection pools of their own on PostgreSQL), and
   * `build` makes the heaviest public answers in a worker thread. Default: `db` itself, on the
   * event loop (tests).
   */
  reads?: { public: Db; console: Db; build?: (job: unknown) => Promise<unknown> };
  /** The clock for "since yesterday" and sessions: the system's from src/cli, a fixed one in tests. */
  now: () => number;
  /**
   * The public origin links in feeds, the calendar, robots.txt and the sitemap are built from
   * (`--origin`); a function when it is known only once the server listens. Never the Host
   * header: a request cannot make our feeds point elsewhere. Default http://localhost.
   */
  origin?: string | (() => string);
  /**
   * Operator console settings (src/web/console); `false` turns the console off (no operator
   * password is set: /console answers 503 and says how to set one).
   */
  console?: ConsoleSettings | false;
  /**
   * Called once, with the error every command says it with (`DATA/nor.db is damaged (SQLite:
   * …): restore it from a backup …`, db.ts storeDamagedError), when a request first meets a
   * damaged store: the serving command says it and stops (exit 1, docs/operations.md). That
   * request, and any other that meets it, is answered 503 (storeDamagedAnswer).
   */
  onStoreDamaged?: (err: NorError) => void;
}

/** The directory: public pages, feeds, JSON API, and the operator's console under /console. */
export function createApp(opts: WebOptions): Hono {
  const app = new Hono();
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const { now } = opts;
  const o = opts.origin ?? "http://localhost";
  const origin = typeof o === "function" ? o : () => o;
  app.use("*", securityHeaders());
  // Before anything reads a body: the sign-in form, the console's forms (16 KiB).
  app.use("*", bodyCap());
  for (const m of caching()) app.use("*", m);
  // A known address written with a trailing slash (`/governments/`, `/new.atom/`) is sent to the
  // address without it (301, its query kept), for GET and HEAD; any other method goes on to the
  // 404 or 405 it would get anyway. The addresses are the app's GET routes (all added below).
  const known = getOnly(app);
  app.use("*", async (c, next) => {
    const m = c.req.method;
    const path = c.req.path;
    if ((m !== "GET" && m !== "HEAD") || !/.\/+$/.test(path) || known(path)) return next();
    const bare = path.replace(/\/+$/, "");
    if (!known(bare)) return next();
    const u = new URL(c.req.url);
    // One leading slash: never a "//host" a browser would read as another site.
    const to = `/${u.pathname.replace(/\/+$/, "").replace(/^\/+/, "")}`;
    return c.redirect(`${to}${u.search}`, 301);
  });
  // A store found damaged by a request's read: 503, never a stack trace to the client; said to
  // the operator once (onStoreDamaged). Any other failure is a 500: JSON under /api/
  // (docs/api.md), its stack on stderr as before (a bug to report).
  let damageSaid = false;
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    const damage = storeDamageOf(err);
    if (damage !== undefined) {
      if (!damageSaid) {
        damageSaid = true;
        opts.onStoreDamaged?.(damage);
      }
      return storeDamagedAnswer(c);
    }
    console.error(err);
    c.header("Cache-Control", "no-store");
    if (isApi(c.req.path)) return c.json({ error: "internal error" }, 500);
    return c.text("Internal Server Error", 500);
  });
  staticRoutes(app, origin, opts.db !== undefined);
  app.get(
    "/site-owners",
    pageReads([], (c, message) => badRequestPage(c, message, "/site-owners")),
    async (c) => {
      // P2: the User-Agent the checker last sent (the latest night's), whatever this server was
      // given; the operator's name only beside the User-Agent it was given with. One key
      // lookup in a table of a row a night, on the store's own connection: never queued
      // behind the read pool's slow pages.
      // A store that cannot be read now (a connection lost) still leaves the page up, with
      // what the server was given, kept by no cache (the next visit reads the store again).
      let unread = false;
      // A damaged store is no passing failure: said as every other page says it (onError).
      const sent = opts.db
        ? await lastNightUserAgent(opts.db).catch((err: unknown) => {
            if (storeDamageOf(err) !== undefined) throw err;
            unread = true;
            return undefined;
          })
        : undefined;
      const shown = sent ?? userAgent;
      const name = shown === userAgent ? opts.operatorName : undefined;
      if (unread) c.header("Cache-Control", "no-store");
      return c.html(<SiteOwnersPage userAgent={shown} operatorName={name} />);
    },
  );
  if (opts.db) {
    const build = opts.reads?.build;
    app.route(
      "/",
      publicRoutes(opts.reads?.public ?? opts.db, {
        now,
        origin,
        // The worker answers with routes.tsx's own Answer (src/web/public/answer-job.ts).
        ...(build ? { build: async (job: AnswerJob) => (await build(job)) as Answer } : {}),
      }),
    );
    if (opts.console === false) {
      app.all("/console", consoleOff);
      app.all("/console/*", consoleOff);
    } else {
      app.route(
        "/console",
        consoleRoutes(opts.db, {
          now,
          ...(opts.console ?? {}),
          ...(opts.reads ? { reads: opts.reads.console } : {}),
        }),
      );
    }
  } else {
    app.get("/", (c) => c.redirect("/site-owners"));
  }
  // Any method but GET and HEAD on an address that answers GET: 405 with what it allows (the
  // console, which answers its own methods, is left to itself). A file (a feed, the calendar, a
  // download) says it in plain text, as its other refusals.
  const isConsole = (path: string) => path === "/console" || path.startsWith("/console/");
  const servesGet = getOnly(app, isConsole);
  const servesFile = getOnly(app, (p) => isConsole(p) || !namesFile(p));
  app.notFound((c) => {
    const m = c.req.method;
    if (m !== "GET" && m !== "HEAD" && !isConsole(c.req.path) && servesGet(c.req.path)) {
      c.header("Allow", ALLOW);
      if (servesFile(c.req.path))
        return c.text(`${echo(c.req.path)} answers ${ALLOW} only, not ${m}.`, 405);
      return c.html(
        <MessagePage
          title="Not allowed here"
          message={`${echo(c.req.path)} answers ${ALLOW} only, not ${m}.`}
          back={{ href: "/governments", text: "All governments" }}
        />,
        405,
      );
    }
    if (namesFile(c.req.path)) return c.text(`Nothing is at ${echo(c.req.path)}.`, 404);
    return c.html(
      <MessagePage
        title="Not found"
        message={`Nothing is at ${echo(c.req.path)}.`}
        back={{ href: "/governments", text: "All governments" }}
      />,
      404,
    );
  });
  return app;
}

const isApi = (path: string) => path === "/api" || path.startsWith("/api/");

/**
 * What a request that met a damaged store is answered: 503, kept by no cache, in the form its
 * address answers errors in (JSON `{ "error": … }` under /api/, plain text for a file, else a
 * page), saying the directory cannot be read now; the store's path and SQLite's words go to the
 * operator only.
 */
function storeDamagedAnswer(c: Context): Response | Promise<Response> {
  c.header("Cache-Control", "no-store");
  // The server stops (onStoreDamaged): this connection is not kept for another request.
  c.header("Connection", "close");
  const message =
    "The directory's store cannot be read: it is damaged. The operator has been told; try again later.";
  if (isApi(c.req.path)) return c.json({ error: message }, 503);
  if (namesFile(c.req.path)) return c.text(`${message}\n`, 503);
  return c.html(
    <MessagePage
      title="Not available"
      message={message}
      back={{ href: "/site-owners", text: "About this checker" }}
    />,
    503,
  );
}

const consoleOff = (c: Context) => {
  c.header("Cache-Control", "no-store");
  return c.html(
    <Layout title="The console is off">
      <h1>The console is off</h1>
      <p>
        No operator password is set, so nobody can sign in. The operator sets one with{" "}
        <code>nor operator set-password</code> and restarts the server that shows this page (
        <code>nor start</code>, which <code>npm start</code> runs, or <code>nor serve</code>).
      </p>
    </Layout>,
    503,
  );
};
