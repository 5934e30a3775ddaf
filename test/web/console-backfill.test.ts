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

  it("P7, P26: Restart on a retired source, or on one whose backfill is paused off (the catalog asks for no older pages), says so and changes nothing", async () => {
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
      "Its older pages are paused because the catalog asked for none (backfill.pagesPerNight 0), and still does; they go on by themselves, from where they were, the first night it asks for some: nothing changed.",
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

  it("P7, P26: no Restart button where a restart would be refused (a retired source's backfill that gave up, a backfill paused off), the page saying why instead; a stale form's POST still answers 409", async () => {
    await f.db
      .insertInto("backfill")
      .values({
        source_id: "oh-a-agendas",
        done: 1,
        cursor: JSON.stringify({ url: older }),
        pages_read: 3,
        ended: JSON.stringify({
          why: "gave-up",
          night: "2026-11-05",
          url: older,
          reason: "not the page 3 nights running (last: error, HTTP 400)",
        }),
      })
      .execute();
    // Shown while it may be restarted (the form a person may still have open).
    expect(await (await b.get("/console/sources/oh-a-agendas")).text()).toContain(
      "Restart its older pages from that page",
    );
    await retire(f, "oh-a-agendas", "2026-11-06T00:00:00.000Z");
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).not.toContain(`action="/console/sources/oh-a-agendas/backfill"`);
    expect(page).not.toContain("Restart its older pages");
    expect(page).toContain(
      "No restart: it was retired 2026-11-06T00:00:00.000Z (no longer in the catalog), so no night reads it.",
    );
    const stale = await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token });
    expect(stale.status).toBe(409);

    // Paused off: no button either; it goes on by itself once the catalog asks for older pages.
    await f.db.updateTable("sources").set({ retired_at: null }).execute();
    await f.db
      .updateTable("backfill")
      .set({ ended: JSON.stringify({ why: "off", night: "2026-11-05" }) })
      .execute();
    const off = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(off).not.toContain(`action="/console/sources/oh-a-agendas/backfill"`);
    expect(off).toContain(
      `Older pages: off on the night of 2026-11-05, 3 older pages read: the catalog asks for none (backfill.pagesPerNight is 0); paused, they go on by themselves from ${older} the first night it asks for some`,
    );
    const offPost = await b.post("/console/sources/oh-a-agendas/backfill", { csrf: token });
    expect(offPost.status).toBe(409);
    const row = await f.db.selectFrom("backfill").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ done: 1, restarts: 0 });
  });

  it("P7: a source no night has read yet says its older pages have not begun, with no restart button", async () => {
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).toContain("Older pages: not begun");
    expect(page).not.toContain("/backfill");
  });
});

/** The source as a catalog import keeps it, retired at `at` (P26). */
async function retire(f: Fixture, id: string, at: string): Promise<void> {
  const kept = { catalog_file: "t.yaml", first_seen_at: at, updated_at: at };
  await f.db
    .insertInto("governments")
    .values({
      id: "oh-a",
      name: "A",
      kind: "city",
      county: null,
      website: null,
      entry: "{}",
      retired_at: null,
      ...kept,
    })
    .execute();
  await f.db
    .insertInto("sources")
    .values({
      id,
      government_id: "oh-a",
      records: "agendas",
      url: "https://a.example.gov/agendas",
      access: "html",
      platform: null,
      name: null,
      confirmed: 0,
      entry: JSON.stringify({ id, backfill: { pagesPerNight: 3 } }),
      renamed_to: null,
      retired_at: at,
      ...kept,
    })
    .execute();
}
