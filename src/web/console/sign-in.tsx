import type { Context, Hono } from "hono";
import type { Db } from "../../store/db.js";
import {
  BASE,
  type ConsoleEnv,
  clearSessionCookie,
  sessionCookie,
  setSessionCookie,
} from "./auth.js";
import { ConsoleLayout, Message } from "./layout.js";
import { hashPassword, verifyPassword } from "./password.js";
import { consoleReads } from "./query.js";
import type { SignInLimiter } from "./rate-limit.js";
import { type SessionStore, storedPasswordHash } from "./session-store.js";

export interface SignInDeps {
  db: Db;
  now: () => number;
  sessions: SessionStore;
  limiter: SignInLimiter;
  /** A configured password (hashed in memory here); otherwise the store's hash is used. */
  password?: string;
  publicOrigin?: string;
  clientAddress: (c: Context) => string;
}

const SignInPage = ({ message }: { message?: string }) => (
  <ConsoleLayout title="Sign in">
    <Message text={message} />
    <form method="post" action={`${BASE}/sign-in`}>
      <label>
        Operator password{" "}
        <input type="password" name="password" autocomplete="current-password" required />
      </label>{" "}
      <button type="submit">Sign in</button>
    </form>
  </ConsoleLayout>
);

/**
 * One operator password, no sign-up, never in a URL: the form POSTs it. Failed attempts are
 * counted per client address (5 per 15 minutes, then 429).
 */
export function signInRoutes(app: Hono<ConsoleEnv>, d: SignInDeps): void {
  // Hash a configured password once, with a random salt, so it is never compared in clear.
  const configured = d.password !== undefined ? hashPassword(d.password) : undefined;
  const currentHash = async () => (configured ? await configured : await storedPasswordHash(d.db));

  app.get("/sign-in", consoleReads([], { title: "Sign in" }), async (c) => {
    const live = await d.sessions.find(sessionCookie(c), d.now());
    if (live) return c.redirect(BASE, 303);
    return c.html(<SignInPage />);
  });

  app.post("/sign-in", async (c) => {
    const address = d.clientAddress(c);
    // Counted before the body is parsed or the hash computed (no await before this line).
    const admission = d.limiter.admit(address, d.now());
    if (!admission.ok) {
      c.header("Retry-After", String(Math.ceil(admission.retryAfterMs / 1000)));
      const minutes = Math.ceil(admission.retryAfterMs / 60_000);
      return c.html(
        <SignInPage
          message={`Too many sign-ins from your address; try again in ${minutes} min.`}
        />,
        429,
      );
    }
    let ok = false;
    try {
      const body = await c.req.parseBody();
      const password = typeof body["password"] === "string" ? body["password"] : "";
      const hash = await currentHash();
      if (!hash) {
        return c.html(
          <SignInPage message="No operator password is set: run `nor operator set-password`." />,
          401,
        );
      }
      if (!(await verifyPassword(password, hash))) {
        return c.html(<SignInPage message="That is not the operator password." />, 401);
      }
      ok = true;
    } finally {
      admission.done(ok);
    }
    // A fresh id on every sign-in: a session id known before sign-in is never promoted.
    const old = sessionCookie(c);
    if (old) await d.sessions.end(old);
    const s = await d.sessions.create(d.now());
    setSessionCookie(c, s, d.now(), d.publicOrigin);
    return c.redirect(BASE, 303);
  });
}

/** Sign-out deletes the server-side session, so the cookie is dead even if kept. */
export function signOutRoute(app: Hono<ConsoleEnv>, sessions: SessionStore): void {
  app.post("/sign-out", async (c) => {
    await sessions.end(c.get("session").id);
    clearSessionCookie(c);
    return c.html(
      <ConsoleLayout title="Signed out">
        <p>
          You are signed out. <a href={`${BASE}/sign-in`}>Sign in again</a>
        </p>
      </ConsoleLayout>,
    );
  });
}
