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

  it("P7, P26: Restart on a retired source, or on one whose catalog asks for no older pages, says so and changes nothing", async () => {
    await f.db
      .insertInto("backfill")
      .values({
        source_id: "oh-a-agendas",
        done: 1,
        cursor: null,
        pages_read: 0,
        ended: JSON.stringify({ why: "off", night: "2026-11-05" }),
      })
      .execute();
    // As a catalog import keeps it: its backfill.pagesPerNight 0.
    const at = "2026-11-04T00:00:00.000Z";
    const kept = { catalog_file: "t.yaml", first_seen_at: at, updated_at: at, retired_at: null };
    await f.db
      .insertInto("governments")
      .values({
        id: "oh-a",
        name: "A",
        kind: "city",
        county: null,
        website: null,
        entry: "{}",
        ...kept,
      })
      .execute();
    await f.db
      .insertInto("sources")
      .values({
        id: "oh-a-agendas",
        government_id: "oh-a",
        records: "agendas",
        url: "https://a.example.gov/agendas",
        access: "html",
        platform: null,
        name: null,
        confirmed: 0,
        entry: JSON.stringify({ id: "oh-a-agendas", backfill: { pagesPerNight: 0 } }),
        renamed_to: null,
        ...kept,
      })
      .execute();
    const off = await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token });
    expect(off.status).toBe(409);
    expect(await off.text()).toContain(
      "The catalog asks for no older pages (backfill.pagesPerNight is 0): nothing changed.",
    );
    await f.db
      .updateTable("sources")
      .set({ retired_at: "2026-11-06T00:00:00.000Z" })
      .where("id", "=", "oh-a-agendas")
      .execute();
    const retired = await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token });
    expect(retired.status).toBe(409);
    expect(await retired.text()).toContain("It was retired 2026-11-06T00:00:00.000Z");
    const row = await f.db.selectFrom("backfill").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ done: 1, restarts: 0 });
  });

  it("P7: a source no night has read yet says its older pages have not begun, with no restart button", async () => {
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).toContain("Older pages: not begun");
    expect(page).not.toContain("/backfill");
  });
});
