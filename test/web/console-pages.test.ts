import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listFlags, statusRows } from "../../src/store/admin.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { entry } from "../store/entries.js";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;
const FLAG = "2026-11-05:no-3-nights:oh-b-bids";

describe("console pages", () => {
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
  afterEach(async () => f?.close());

  const row = async (id: string) => (await statusRows(f.db)).find((r) => r.id === id);

  it("P24: the console form marks a source not read with its reason, recorded as the operator, then resumes it", async () => {
    const res = await b.post("/console/sources/oh-a-agendas/mark", {
      csrf: token,
      action: "not-read",
      reason: "  The clerk asked us to stop  ",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/sources/oh-a-agendas");
    expect(await row("oh-a-agendas")).toMatchObject({
      reading: false,
      notReadReason: "The clerk asked us to stop",
    });
    const marks = await f.db.selectFrom("marks").selectAll().execute();
    expect(marks).toEqual([
      {
        source_id: "oh-a-agendas",
        at: new Date(f.clock.now()).toISOString(),
        made_at: new Date(f.clock.now()).toISOString(),
        reading: 0,
        reason: "The clerk asked us to stop",
        by: "operator",
        night: "2026-11-05",
      },
    ]);
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).toContain('<strong id="reading">not read</strong>');
    expect(page).toContain("Resume reading");

    await f.clock.advance(60_000);
    expect(
      (await b.post("/console/sources/oh-a-agendas/mark", { csrf: token, action: "read" })).status,
    ).toBe(303);
    expect((await row("oh-a-agendas"))?.reading).toBe(true);
    expect(await f.db.selectFrom("marks").selectAll().execute()).toHaveLength(2); // kept, not overwritten
  });

  it("P24: an empty (or blank) reason is refused with a message and marks nothing", async () => {
    for (const reason of ["", "   "]) {
      const res = await b.post("/console/sources/oh-a-agendas/mark", {
        csrf: token,
        action: "not-read",
        reason,
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("A reason is required to mark a source not read");
    }
    expect(await f.db.selectFrom("marks").selectAll().execute()).toHaveLength(0);
    expect((await row("oh-a-agendas"))?.reading).toBe(true);
  });

  it("marking an unknown source is a 404 and stores nothing", async () => {
    const res = await b.post("/console/sources/nope/mark", { csrf: token, action: "read" });
    expect(res.status).toBe(404);
    expect(await f.db.selectFrom("marks").selectAll().execute()).toHaveLength(0);
  });

  it("P24, P25: the review queue shows the open flag; clearing records who and when and moves it under the toggle", async () => {
    let html = await (await b.get("/console/flags")).text();
    expect(html).toContain('<span id="open-count">1</span>');
    expect(html).toContain("no-3-nights");
    expect(html).toContain("refused on 3 nights running");
    expect(html).toContain(`value="${FLAG}"`);
    const res = await b.post("/console/flags/clear", { csrf: token, id: FLAG });
    expect(res.status).toBe(303);
    const [flag] = await listFlags(f.db, true);
    expect(flag).toMatchObject({
      id: FLAG,
      clearedBy: "operator",
      clearedAt: new Date(f.clock.now()).toISOString(),
    });
    expect(await listFlags(f.db, false)).toHaveLength(0);
    html = await (await b.get("/console/flags")).text();
    expect(html).toContain('<span id="open-count">0</span>');
    expect(html).toContain("Cleared flags (1)");
    // Clearing twice is refused with the reason; the first clearing stands.
    const again = await b.post("/console/flags/clear", { csrf: token, id: FLAG });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already cleared");
  });

  it("the overview shows last night: sources checked, outcomes by kind, nos by site with evidence, unreached, requests, open flags", async () => {
    await new SqlRequestLog(f.db).appendMany([
      entry({ site: "a.gov", night: "2026-11-05", bytes: 100 }),
      entry({ site: "a.gov", night: "2026-11-05", bytes: 50, purpose: "robots" }),
      entry({ site: "b.gov", night: "2026-11-05", status: 403, outcome: "refused" }),
      entry({ site: "b.gov", night: "2026-11-04" }), // another night: not counted
    ]);
    const html = await (await b.get("/console")).text();
    expect(html).toContain('<strong id="open-flags">1</strong> open flag');
    expect(html).toContain("<strong>3</strong> sources checked, <strong>3</strong>");
    expect(html).toMatch(/refused<\/a><\/td><td>1</);
    expect(html).toContain("By site: b.gov 1");
    expect(html).toContain("cloudflare · challenge · ref 8f1e2a3b4c5d6e7f");
    expect(html).toContain("oh-c-minutes</a> the night&#39;s time limit passed");
    expect(html).toContain("<td>a.gov</td><td>2</td><td>150</td>");
    const night = await b.get("/console/nights/2026-11-05");
    expect(night.status).toBe(200);
    expect(await night.text()).toContain("<td>b.gov</td><td>1</td>");
    const list = await (await b.get("/console/nights")).text();
    expect(list).toContain('href="/console/nights/2026-11-05"');
    expect((await b.get("/console/nights/2026-11-09")).status).toBe(404);
  });

  it("sources filter by reading, not read, flagged and outcome", async () => {
    await b.post("/console/sources/oh-c-minutes/mark", {
      csrf: token,
      action: "not-read",
      reason: "gone",
    });
    const ids = async (q: string) =>
      [
        ...(await (await b.get(`/console/sources${q}`)).text()).matchAll(
          /href="\/console\/sources\/([^"]+)"/g,
        ),
      ].map((m) => m[1]);
    expect(await ids("")).toEqual(["oh-a-agendas", "oh-b-bids", "oh-c-minutes"]);
    expect(await ids("?show=not-read")).toEqual(["oh-c-minutes"]);
    expect(await ids("?show=reading")).toEqual(["oh-a-agendas", "oh-b-bids"]);
    expect(await ids("?show=flagged")).toEqual(["oh-b-bids"]);
    expect(await ids("?outcome=refused")).toEqual(["oh-b-bids"]);
  });

  it("escapes a hostile source name, government and reason on every page", async () => {
    const evil = `<script>alert("x")</script>`;
    await f.db
      .insertInto("night_catalog")
      .values({
        source_id: `oh-${evil}`,
        government: `Gov ${evil}`,
        url: "https://d.gov/",
        site: "d.gov",
        updated_at: "2026-11-05T08:00:00.000Z",
      })
      .execute();
    const path = `/console/sources/${encodeURIComponent(`oh-${evil}`)}`;
    expect(
      (await b.post(`${path}/mark`, { csrf: token, action: "not-read", reason: `why ${evil}` }))
        .status,
    ).toBe(303);
    await f.db
      .insertInto("flags")
      .values({
        id: `f-${evil}`,
        source_id: `oh-${evil}`,
        kind: "no-records",
        night: "2026-11-05",
        detail: evil,
        raised_at: "2026-11-05T09:00:00.000Z",
        cleared_at: null,
        cleared_by: null,
      })
      .execute();
    for (const p of [path, "/console/sources", "/console/flags"]) {
      const html = await (await b.get(p)).text();
      expect(html, p).not.toContain("<script>");
      expect(html, p).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    }
  });
});
