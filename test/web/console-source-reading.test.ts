import { load } from "cheerio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Browser, consoleFixture, seedNight } from "./console-support.js";

type Fixture = Awaited<ReturnType<typeof consoleFixture>>;

/**
 * Whether a source is read, as the console says it: its source page and its Sources list's
 * Show filter say what `nor status` and the Sources list's own reading column say (readingText),
 * never only the source's own mark. Before the fix a source whose site's owner asked not to be
 * read (`nor site --not-read`, the Sites page) was "Status: read" on its page and listed under
 * Show: reading, not under not-read, while the row beside the filter said "not read: the
 * site's owner asked …"; a retired source was "Status: read" too.
 */
describe("console: a source's reading, said alike everywhere (toperator)", () => {
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

  const sourcePage = async (id: string) => {
    const res = await b.get(`/console/sources/${id}`);
    expect(res.status).toBe(200);
    return load(await res.text());
  };
  /** The ids the Sources page lists under Show: `show`, with the reading column of each. */
  const listed = async (show: string) => {
    const res = await b.get(`/console/sources?show=${show}`);
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    return $("table tr")
      .slice(1)
      .toArray()
      .map((tr) => {
        const cells = $(tr).find("td");
        const id = /\(([^)]+)\)/.exec(cells.eq(0).text())?.[1] ?? "";
        return [id, cells.eq(2).text()];
      });
  };

  it("P24, P26: a source whose site's owner asked not to be read is 'not read' with the owner's words on its console page and under Show: not-read, never 'read' or under Show: reading; a retired one is said retired and is not listed as reading", async () => {
    const owner = await b.post("/console/sites/rules", {
      csrf: token,
      site: "a.gov",
      kind: "not-read",
      reason: "clerk, Nov 5",
    });
    expect(owner.status).toBe(303);
    const words = "the site's owner asked not to be read (clerk, Nov 5)";

    const a = await sourcePage("oh-a-agendas");
    expect(a("#reading").text()).toBe("not read");
    expect(a("#reading").parent().text()).toContain(words);
    // Its own mark stays its own: the form to mark it is still there.
    expect(a(`form[action="/console/sources/oh-a-agendas/mark"]`).length).toBe(1);

    const reading = await listed("reading");
    const notRead = await listed("not-read");
    expect(notRead).toContainEqual(["oh-a-agendas", `not read: ${words}`]);
    expect(reading.map(([id]) => id)).not.toContain("oh-a-agendas");
    // Every row the filter keeps says what the filter asked for.
    for (const [, text] of reading) expect(text).toBe("read");
    for (const [, text] of notRead) expect(text).not.toBe("read");

    // A source an import retired: said retired, and not read by any night.
    const at = "2026-11-06T00:00:00.000Z";
    const kept = { catalog_file: "t.yaml", first_seen_at: at, updated_at: at };
    await f.db
      .insertInto("governments")
      .values({
        id: "oh-b",
        name: "B",
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
        id: "oh-b-bids",
        government_id: "oh-b",
        records: "bids",
        url: "https://b.gov/bids",
        access: "html",
        platform: null,
        name: null,
        confirmed: 0,
        entry: JSON.stringify({ id: "oh-b-bids" }),
        renamed_to: null,
        retired_at: at,
        ...kept,
      })
      .execute();
    const retired = await sourcePage("oh-b-bids");
    expect(retired("#reading").text()).toBe("retired");
    expect((await listed("reading")).map(([id]) => id)).not.toContain("oh-b-bids");
    expect(await listed("not-read")).toContainEqual([
      "oh-b-bids",
      `retired ${at}: no longer in the catalog`,
    ]);
  });

  it("P26, P18: a source whose every way its site's owner asked to be left alone is 'not read' with the owner's words on its console page and under Show: not-read; a source of another site stays read", async () => {
    const owner = await b.post("/console/sites/rules", {
      csrf: token,
      site: "a.gov",
      kind: "leave-alone",
      value: "/agendas",
      reason: "clerk, Nov 5",
    });
    expect(owner.status).toBe(303);
    const words = "the site's owner asked for /agendas to be left alone (clerk, Nov 5)";
    const a = await sourcePage("oh-a-agendas");
    expect(a("#reading").text()).toBe("not read");
    expect(a("#reading").parent().text()).toContain(words);
    expect(await listed("not-read")).toContainEqual(["oh-a-agendas", `not read: ${words}`]);
    expect((await listed("reading")).map(([id]) => id)).toContain("oh-b-bids");
    expect((await sourcePage("oh-b-bids"))("#reading").text()).toBe("read");
  });
});
