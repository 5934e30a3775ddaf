import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

/**
 * The console words each outcome of a mark or a cleared flag for a browser: a change is a
 * redirect (303), a change already made is 409 with what stands, an unknown source or flag
 * 404, a missing reason 400; a store that fails is a 500, never "No such source".
 */
type Fixture = Awaited<ReturnType<typeof consoleFixture>>;
const FLAG = "2026-11-05:no-3-nights:oh-b-bids";
const MARK = "/console/sources/oh-a-agendas/mark";

describe("console outcomes", () => {
  let f: Fixture;
  let b: Browser;
  let token: string;

  beforeEach(async () => {
    f = await consoleFixture();
    await seedNight(f.db);
    b = f.browser();
    await b.signIn();
    token = await b.token();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await f?.close();
  });

  const marks = async () => (await f.db.selectFrom("marks").selectAll().execute()).length;

  it("P24: a mark already made is 409 with what stands, and records nothing", async () => {
    const read = await b.post(MARK, { csrf: token, action: "read" });
    expect(read.status).toBe(409);
    expect(await read.text()).toContain("It is already read: nothing changed.");
    expect(await marks()).toBe(0);

    const fields = { csrf: token, action: "not-read", reason: "The clerk asked" };
    expect((await b.post(MARK, fields)).status).toBe(303);
    await f.clock.advance(60_000);
    const again = await b.post(MARK, fields);
    expect(again.status).toBe(409);
    const html = await again.text();
    expect(html).toContain("It is already not read for that reason (since 2026-11-05 09:00");
    expect(html).not.toContain("No such source");
    expect(await marks()).toBe(1);
    // Another reason is a change (P24: kept beside the first).
    await f.clock.advance(60_000);
    expect((await b.post(MARK, { ...fields, reason: "Asked again" })).status).toBe(303);
    expect(await marks()).toBe(2);
  });

  it("P24: a missing reason is 400 on the source's page; an unknown source 404", async () => {
    const blank = await b.post(MARK, { csrf: token, action: "not-read", reason: " " });
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain("A reason is required");
    const unknown = await b.post("/console/sources/nope/mark", { csrf: token, action: "read" });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("No source");
    expect(await marks()).toBe(0);
  });

  it("P24, P25: clearing an unknown flag is 404 with its id; the open flag stays", async () => {
    const res = await b.post("/console/flags/clear", { csrf: token, id: "no-such-flag" });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("There is no flag &quot;no-such-flag&quot;");
    const open = await f.db.selectFrom("flags").select("cleared_at").execute();
    expect(open).toEqual([{ cleared_at: null }]);
  });

  it("a store that fails answers 500 for a mark and a clear, never No such source", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await sql`drop table marks`.execute(f.db);
    const mark = await b.post(MARK, { csrf: token, action: "not-read", reason: "why" });
    expect(mark.status).toBe(500);
    expect(await mark.text()).not.toContain("No such source");
    await sql`drop table flags`.execute(f.db);
    const clear = await b.post("/console/flags/clear", { csrf: token, id: FLAG });
    expect(clear.status).toBe(500);
    expect(await clear.text()).not.toMatch(/no flag|already cleared/i);
    expect(logged).toHaveBeenCalled();
  });
});
