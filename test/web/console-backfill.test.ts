import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * P7: the console's source page says where the source's older pages stand (going on, ended and
 * why, given up on which page), and a backfill that ended is restarted from there, as `nor
 * backfill restart` does.
 */
describe("console: a source's older pages (P7)", () => {
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

  const older = "https://a.example.gov/agendas?page=4";

  it("P7: a backfill given up is said on the source's page with its page, night and why; its Restart button (CSRF) makes it go on from that page", async () => {
    await f.db
      .insertInto("backfill")
      .values({
        source_id: "oh-a-agendas",
        done: 1,
        cursor: JSON.stringify({ url: older, unansweredNights: 10 }),
        pages_read: 3,
        ended: JSON.stringify({
          why: "gave-up",
          night: "2026-11-05",
          url: older,
          reason: "no answer 10 nights running (last: timed-out, no headers within 30 s)",
        }),
      })
      .execute();
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).toContain(
      `Older pages: given up on the night of 2026-11-05, 3 older pages read: the older page ${older} failed, no answer 10 nights running (last: timed-out, no headers within 30 s)`,
    );
    expect(page).toContain("Restart its older pages from that page");

    // A POST without the form's token changes nothing.
    expect((await b.post("/console/sources/oh-a-agendas/backfill", {})).status).toBe(403);
    const res = await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/console/sources/oh-a-agendas");
    const row = await f.db.selectFrom("backfill").selectAll().executeTakeFirstOrThrow();
    // Going on from the page it gave up on, the nights counted against it forgotten.
    expect(row).toMatchObject({
      done: 0,
      ended: null,
      pages_read: 3,
      restarts: 1,
      restarted_by: "operator",
    });
    expect(JSON.parse(row.cursor ?? "")).toEqual({ url: older });
    const after = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(after).toContain(
      `Older pages: reading a few a night (restarted by operator at ${row.restarted_at}), 3 older pages read; next ${older}`,
    );
    // Going on: nothing to restart.
    expect((await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token })).status).toBe(
      409,
    );
  });

  it("P7: a source no night has read yet says its older pages have not begun, with no restart button", async () => {
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).toContain("Older pages: not begun");
    expect(page).not.toContain("/backfill");
  });
});
