import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { FAILURE_WINDOW_MS } from "../../src/web/console/rate-limit.js";
import { SESSION_MS } from "../../src/web/console/session-store.js";
import { Browser, consoleFixture, PASSWORD } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

const PAGES = [
  "/console",
  "/console/sources",
  "/console/sources/oh-a-agendas",
  "/console/flags",
  "/console/nights",
  "/console/nights/2026-11-05",
  "/console/log",
  "/console/log?since=2026-11-05",
  "/console/log.json?since=2026-11-05",
];

describe("console sign-in and sessions", () => {
  let f: Fixture;
  afterEach(async () => f?.close());

  it("signs in with the right password: a session cookie HttpOnly, SameSite=Strict, Path=/console", async () => {
    f = await consoleFixture();
    const b = f.browser();
    const res = await b.signIn();
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console");
    const sc = b.lastSetCookie.join("\n");
    expect(sc).toMatch(/^nor_console=[A-Za-z0-9_-]{43};/);
    expect(sc).toMatch(/HttpOnly/);
    expect(sc).toMatch(/SameSite=Strict/);
    expect(sc).toMatch(/Path=\/console/);
    expect(sc).not.toMatch(/Secure/); // plain http here; https below
    expect((await b.get("/console")).status).toBe(200);
    // The store keeps only a hash of the session id, never the cookie's value.
    const rows = await f.db.selectFrom("console_sessions").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.id_hash).not.toBe(b.cookies.get("nor_console"));
  });

  it("refuses the wrong password (401) and sets no session", async () => {
    f = await consoleFixture();
    const b = f.browser();
    const res = await b.signIn("correct horse battery stapl");
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("not the operator password");
    expect(b.cookies.size).toBe(0);
    expect((await b.get("/console")).status).toBe(303);
  });

  it("with no password configured or stored, nobody signs in", async () => {
    f = await consoleFixture({});
    const res = await f.browser().signIn("");
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("nor operator set-password");
  });

  it("sets Secure on the cookie when the request is https", async () => {
    f = await consoleFixture();
    const res = await f.app.request("https://nor.example.org/console/sign-in", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://nor.example.org",
      },
      body: new URLSearchParams({ password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toMatch(/Secure/);
  });

  it("rate-limits failed sign-ins: 5 per 15 minutes per address, then 429 even for the right password", async () => {
    f = await consoleFixture();
    const b = f.browser();
    for (let i = 0; i < 5; i++) expect((await b.signIn(`wrong guess ${i}`)).status).toBe(401);
    const limited = await b.signIn();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(b.cookies.size).toBe(0);
    await f.clock.advance(FAILURE_WINDOW_MS - 1000);
    expect((await b.signIn()).status).toBe(429);
    await f.clock.advance(1000);
    expect((await b.signIn()).status).toBe(303);
  });

  it("counts failures per client address", async () => {
    f = await consoleFixture();
    const app = createApp({
      db: f.db,
      now: () => f.clock.now(),
      console: { password: PASSWORD, clientAddress: (c) => c.req.header("x-test-peer") ?? "?" },
    });
    const attempt = (peer: string, password: string) =>
      app.request("/console/sign-in", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "http://localhost",
          "x-test-peer": peer,
        },
        body: new URLSearchParams({ password }).toString(),
      });
    for (let i = 0; i < 5; i++)
      expect((await attempt("10.0.0.1", "nope nope nope")).status).toBe(401);
    expect((await attempt("10.0.0.1", PASSWORD)).status).toBe(429);
    expect((await attempt("10.0.0.2", PASSWORD)).status).toBe(303);
  });

  it("a session ends 12 hours after sign-in", async () => {
    f = await consoleFixture();
    const b = f.browser();
    await b.signIn();
    await f.clock.advance(SESSION_MS - 1);
    expect((await b.get("/console")).status).toBe(200);
    await f.clock.advance(1);
    const res = await b.get("/console");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/sign-in");
  });

  it("sign-out ends the session server-side: the old cookie, replayed, no longer works", async () => {
    f = await consoleFixture();
    const b = f.browser();
    await b.signIn();
    const kept = new Map(b.cookies);
    const token = await b.token();
    const out = await b.post("/console/sign-out", { csrf: token });
    expect(out.status).toBe(200);
    expect(b.lastSetCookie.join("\n")).toMatch(/nor_console=;.*Max-Age=0/);
    expect(await f.db.selectFrom("console_sessions").selectAll().execute()).toHaveLength(0);
    const replay = new Browser(f.app);
    replay.cookies = kept;
    expect((await replay.get("/console")).status).toBe(303);
  });

  it("every console page redirects to sign-in when signed out, also with a made-up cookie", async () => {
    f = await consoleFixture();
    const anon = f.browser();
    const forged = f.browser();
    forged.cookies.set("nor_console", "A".repeat(43));
    for (const b of [anon, forged]) {
      for (const p of PAGES) {
        const res = await b.get(p);
        expect(res.status, p).toBe(303);
        expect(res.headers.get("location"), p).toBe("/console/sign-in");
      }
    }
    const page = await anon.get("/console/sign-in");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('type="password"');
  });
});
