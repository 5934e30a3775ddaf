import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusRows } from "../../src/store/admin.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * CSRF: a state-changing request must be a POST from a form of ours carrying the session's
 * synchronizer token AND pass hono's csrf() Origin check. Each refusal is a 403 that changes
 * nothing in the store. The refusals share one store and session (each compares the store
 * before and after itself); the one request that goes through has a store of its own.
 */
describe("console CSRF", () => {
  let f: Fixture;
  let b: Browser;
  let token: string;

  const markForm = (extra: Record<string, string> = {}) => ({
    action: "not-read",
    reason: "clerk asked us to stop",
    ...extra,
  });
  const snapshot = async () => ({
    marks: await f.db.selectFrom("marks").selectAll().execute(),
    flags: await f.db.selectFrom("flags").selectAll().execute(),
    sessions: (await f.db.selectFrom("console_sessions").selectAll().execute()).length,
    reading: (await statusRows(f.db)).map((r) => [r.id, r.reading]),
  });

  beforeAll(async () => {
    f = await consoleFixture();
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
    token = await b.token();
  });
  afterAll(async () => f?.close());

  const cases: [string, (path: string, fields: Record<string, string>) => Promise<Response>][] = [
    ["without the token", (p, fields) => b.post(p, fields)],
    ["with a wrong token", (p, fields) => b.post(p, { ...fields, csrf: `${token.slice(0, -1)}x` })],
    ["with another session's token", (p, fields) => b.post(p, { ...fields, csrf: "Z".repeat(43) })],
    [
      "from another Origin",
      (p, fields) => b.post(p, { ...fields, csrf: token }, { origin: "https://evil.example" }),
    ],
    [
      "with no Origin at all",
      (p, fields) => b.post(p, { ...fields, csrf: token }, { origin: null }),
    ],
    [
      "as JSON instead of a form",
      (p, fields) => b.post(p, { ...fields, csrf: token }, { contentType: "application/json" }),
    ],
  ];

  for (const [how, send] of cases) {
    it(`P24: marking not read ${how} is refused (403) and changes nothing`, async () => {
      const before = await snapshot();
      const res = await send("/console/sources/oh-a-agendas/mark", markForm());
      expect(res.status).toBe(403);
      expect(await snapshot()).toEqual(before);
    });

    it(`P25: clearing a flag ${how} is refused (403) and changes nothing`, async () => {
      const before = await snapshot();
      const res = await send("/console/flags/clear", { id: "2026-11-05:no-3-nights:oh-b-bids" });
      expect(res.status).toBe(403);
      expect(await snapshot()).toEqual(before);
    });

    it(`signing out ${how} is refused (403) and the session lives on`, async () => {
      const res = await send("/console/sign-out", {});
      expect(res.status).toBe(403);
      expect((await b.get("/console")).status).toBe(200);
    });
  }

  it("a sign-in POST from another Origin is refused before the password is looked at", async () => {
    const anon = f.browser();
    const res = await anon.post(
      "/console/sign-in",
      { password: "x" },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
    expect(anon.cookies.size).toBe(0);
  });

  it("GET never changes anything: a GET to a POST route is not found and the store is as before", async () => {
    const before = await snapshot();
    const q = new URLSearchParams({ ...markForm(), csrf: token }).toString();
    const res = await b.get(`/console/sources/oh-a-agendas/mark?${q}`);
    expect(res.status).toBe(404);
    expect((await b.get(`/console/flags/clear?id=x&csrf=${token}`)).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it("console pages are not cacheable and not frameable", async () => {
    const res = await b.get("/console/flags");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("P24: a form giving a field twice (reason=a&reason=b) is refused (400) naming it, never read as its last value; nothing changes", async () => {
    const before = await snapshot();
    const fields = new URLSearchParams({ action: "not-read", reason: "a", csrf: token });
    fields.append("reason", "b");
    const res = await b.post("/console/sources/oh-a-agendas/mark", fields);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Bad request: the form gives the field "reason" more than once');
    expect(await snapshot()).toEqual(before);
  });

  it("the same POST with the token and our Origin goes through (the refusals above are not vacuous)", async () => {
    // On a store of its own: this one changes it.
    const own = await consoleFixture();
    try {
      await seedNight(own.db);
      const browser = own.browser();
      await browser.signIn();
      const csrf = await browser.token();
      const res = await browser.post("/console/sources/oh-a-agendas/mark", markForm({ csrf }));
      expect(res.status).toBe(303);
      const row = (await statusRows(own.db)).find((r) => r.id === "oh-a-agendas");
      expect(row?.reading).toBe(false);
    } finally {
      await own.close();
    }
  });
});
