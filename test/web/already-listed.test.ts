import { load } from "cheerio";
import { parseAtomFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * "New on record" is what appeared since yesterday: the records a page listed when it was first
 * read (11-03 in the fixture: Records 10, 20, 30 and 40) were there before, so they are its
 * page's records but not new, in no list, feed or count of what is new, only counted apart.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture(undefined, { firstReadsListed: true });
});
afterAll(async () => {
  await f?.close();
});

type NewAnswer = {
  items: { title: string }[];
  counts: { total: number; alreadyListed: number; byCounty: { count: number }[] };
};

describe("records already listed when first read", () => {
  it("are not new on record: not in /new, its feeds or its counts; counted apart, and shown on their pages", async () => {
    const week = (await (await f.app.request("/api/new?window=30d")).json()) as NewAnswer;
    const titles = week.items.map((i) => i.title).sort();
    expect(titles).toEqual(["<img src=x onerror=alert(1)>", "Record 12", "Record 22", "Record 31"]);
    expect(week.counts.total).toBe(4);
    expect(week.counts.alreadyListed).toBe(4);
    // The counts by county add up to the new ones only.
    expect(week.counts.byCounty.reduce((n, c) => n + c.count, 0)).toBe(4);
    const first = (await (await f.app.request("/api/new?night=2026-11-03")).json()) as NewAnswer;
    expect(first.counts).toMatchObject({ total: 0, alreadyListed: 4 });

    const page = load(await (await f.app.request("/new?window=30d")).text());
    expect(page(".window").text().replace(/\s+/g, " ")).toContain(
      "Not counted: 4 records that their pages already listed when New on Record first read them (or that were on older pages of their lists); they are not new, and are shown on their pages.",
    );
    const atom = parseAtomFeed(await (await f.app.request("/new.atom?window=30d")).text());
    expect(atom.entries?.map((e) => e.title?.value)).not.toContain("Record 10");
    // P26: after the notice of akron-minutes, not read (an item of its own, not a record).
    expect(
      atom.entries?.filter((e) => !e.id?.startsWith("urn:new-on-record:not-read:")),
    ).toHaveLength(4);

    // The page's own records: all of them, the first read's among them.
    const source = load(await (await f.app.request("/sources/test-agendas")).text());
    const shown = source("a.record")
      .map((_i, a) => source(a).text())
      .get();
    expect(shown).toEqual(expect.arrayContaining(["Record 10", "Record 20", "Record 12"]));
    // Each says whether it was already listed, and the page says what that means.
    const listed = source("table.records tr")
      .filter((_i, tr) => source(tr).find(".already").length > 0)
      .map((_i, tr) => source(tr).find("a.record").text())
      .get()
      .sort();
    expect(listed).toEqual(["Record 10", "Record 20"]);
    expect(source("main").text()).toContain(
      "Already listed: on the page when New on Record first read it",
    );
  });
});
