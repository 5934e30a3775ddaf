import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;
const MARK = "/console/sources/oh-a-agendas/mark";

/**
 * A source a night read (night_catalog names it) that a catalog import then retired: the
 * console's source page offers no mark, and a mark posted from a page opened before the import
 * is 409 saying it retired, as `nor mark` refuses it (exit 2): no mark is recorded.
 */
describe("console: marking a retired source (toperator)", () => {
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

  const marks = async () => (await f.db.selectFrom("marks").selectAll().execute()).length;

  it("P24, P26: a retired source's page has no mark form, and a mark posted for it is 409 naming it retired; nothing is recorded", async () => {
    // Shown while it is in use (the form a person may still have open).
    expect(await (await b.get("/console/sources/oh-a-agendas")).text()).toContain(
      `action="${MARK}"`,
    );
    const at = "2026-11-06T00:00:00.000Z";
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
        id: "oh-a-agendas",
        government_id: "oh-a",
        records: "agendas",
        url: "https://www.a.gov/agendas",
        access: "html",
        platform: null,
        name: null,
        confirmed: 0,
        entry: JSON.stringify({ id: "oh-a-agendas" }),
        renamed_to: "oh-a-meeting-agendas",
        retired_at: at,
        ...kept,
      })
      .execute();
    const page = await (await b.get("/console/sources/oh-a-agendas")).text();
    expect(page).not.toContain(`action="${MARK}"`);
    for (const fields of [
      { csrf: token, action: "not-read", reason: "The clerk asked" },
      { csrf: token, action: "read" },
    ]) {
      const res = await b.post(MARK, fields);
      expect(res.status).toBe(409);
      expect(await res.text()).toContain(
        "It was retired 2026-11-06T00:00:00.000Z (no longer in the catalog; renamed to oh-a-meeting-agendas): no night reads it, nothing changed.",
      );
    }
    expect(await marks()).toBe(0);
  });
});
