/**
 * Who may use the console and how a request proves it: a session cookie (HttpOnly,
 * SameSite=Strict, Path=/console, Secure over https) naming a live server-side session, and on
 * every POST the session's synchronizer CSRF token, compared in constant time. hono's csrf()
 * origin check runs before this, in routes.tsx; both must pass.
 */
import { timingSafeEqual } from "node:crypto";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { echo } from "../public/echo.js";
import type { Session, SessionStore } from "./session-store.js";

export const BASE = "/console";
export const COOKIE = "nor_console";
export const CSRF_FIELD = "csrf";

export type ConsoleEnv = { Variables: { session: Session } };

/** True when the browser reached us over https (directly, or per the configured origin). */
function isHttps(c: Context, publicOrigin: string | undefined): boolean {
  if (publicOrigin) return publicOrigin.startsWith("https:");
  return new URL(c.req.url).protocol === "https:";
}

export function setSessionCookie(
  c: Context,
  s: Session,
  now: number,
  publicOrigin: string | undefined,
): void {
  setCookie(c, COOKIE, s.id, {
    httpOnly: true,
    sameSite: "Strict",
    path: BASE,
    secure: isHttps(c, publicOrigin),
    maxAge: Math.max(0, Math.floor((s.expiresAt - now) / 1000)),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, COOKIE, { path: BASE });
}

export function sessionCookie(c: Context): string | undefined {
  return getCookie(c, COOKIE);
}

/**
 * Every page behind this needs a live session; without one a GET is sent to sign in and a POST
 * is refused (403), so nothing changes either way.
 */
export function requireSession(
  sessions: SessionStore,
  now: () => number,
): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const s = await sessions.find(sessionCookie(c), now());
    if (!s) {
      if (c.req.method === "GET" || c.req.method === "HEAD") {
        return c.redirect(`${BASE}/sign-in`, 303);
      }
      return c.text("Forbidden: sign in first", 403);
    }
    c.set("session", s);
    return next();
  };
}

/**
 * The synchronizer token (OWASP CSRF cheat sheet): a POST must be a form of ours, carrying this
 * session's token. GET, HEAD never change anything, so they pass.
 */
export function requireCsrfToken(): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const type = c.req.header("content-type") ?? "";
    if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
      return c.text("Forbidden: not a form of ours", 403);
    }
    // Every field once (`all`: a field given twice is a list, refused), as the query strings
    // are: never read as whichever came last. Parsed once: the handlers read the same body.
    const body = await c.req.parseBody({ all: true });
    const twice = repeatedField(body);
    if (twice !== undefined)
      return c.text(`Bad request: the form gives the field "${echo(twice)}" more than once`, 400);
    const sent = body[CSRF_FIELD];
    if (typeof sent !== "string" || !sameToken(sent, c.get("session").csrfToken)) {
      return c.text("Forbidden: the form's token is missing or wrong; reload the page", 403);
    }
    return next();
  };
}

/** The first field of a form parsed with `all` that was given more than once, if one was. */
export function repeatedField(body: Record<string, unknown>): string | undefined {
  return Object.keys(body).find((k) => Array.isArray(body[k]));
}

export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The client's address as the operator's own reverse proxy reports it in header `name`: the
 * LAST entry, the one that proxy wrote. A proxy appends the address it saw to whatever the
 * client sent (nginx's `$proxy_add_x_forwarded_for`), so the first entries of X-Forwarded-For
 * are the client's own words: reading those, every guess could name a new address and pass
 * the sign-in limit. Only for a server reached through that proxy alone.
 */
export function headerAddress(name: string): (c: Context) => string {
  return (c) => {
    const entries = (c.req.header(name) ?? "").split(",").map((e) => e.trim());
    return entries.filter((e) => e !== "").at(-1) ?? "unknown";
  };
}

/**
 * The address failed sign-ins are counted against: the TCP peer. X-Forwarded-For is not read
 * by default (anyone can write it); behind a proxy the operator passes `clientAddress`.
 */
export function peerAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // in-process requests (tests) have no socket
  }
}
