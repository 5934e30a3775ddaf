import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * A county's page, as its filter (test/web/county-filter-ohio.test.ts): a county is one of Ohio's
 * 88 (src/sources/catalog/counties.ts). `?county=Adams` was accepted while `/counties/Adams`,
 * where the directory lists nothing yet, answered 404 "not in the directory", as if Adams were
 * no county. A real county with nothing listed is a page that says so (200), with its feeds,
 * which answer an empty list until something is listed; a name that is no Ohio county is still
 * a 404.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("a county the directory lists nothing in yet", () => {
  it("/counties/Adams is a 200 page that says nothing is listed there yet", async () => {
    const res = await f.app.request("/counties/Adams");
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    expect($("h1").text()).toBe("Adams County");
    // True of a county never listed and of one whose governments were all retired alike.
    expect($(".county-count").text()).toContain(
      "Nothing is listed in Adams County now: the directory has no government there.",
    );
    expect($(".county-count").text()).not.toContain("yet");
    // No empty table of governments.
    expect($("table.governments").length).toBe(0);
    // Its feed is offered, and answers (an empty list until something is listed).
    const feed = $('a[href^="/new.atom"]').attr("href");
    expect(feed).toBe("/new.atom?county=Adams");
    expect((await f.app.request(feed ?? "")).status).toBe(200);
  });

  it("as every county's address: in any case, and with ' County' sent to its own (301)", async () => {
    expect((await f.app.request("/counties/adams")).status).toBe(200);
    for (const typed of ["Adams%20County", "adams%20county"]) {
      const res = await f.app.request(`/counties/${typed}`);
      expect(res.status, typed).toBe(301);
      expect(res.headers.get("location"), typed).toBe("/counties/Adams");
    }
  });

  it("/api/counties/Adams is the county with no governments (200)", async () => {
    const res = await f.app.request("/api/counties/Adams");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ county: "Adams", governments: [], notRead: [] });
    expect((await f.app.request("/api/counties/adams%20county")).status).toBe(200);
  });

  it("a name that is no Ohio county is still a 404, on the page and in the API", async () => {
    expect((await f.app.request("/counties/Atlantis")).status).toBe(404);
    expect((await f.app.request("/api/counties/Atlantis")).status).toBe(404);
    // A county of another state that Ohio does not have.
    expect((await f.app.request("/counties/Orange")).status).toBe(404);
  });

  it("a county the directory lists governments in is unchanged", async () => {
    const res = await f.app.request("/counties/Franklin");
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    expect($("table.governments tbody tr").length).toBeGreaterThan(0);
    expect($(".county-count").text()).not.toContain("Nothing is listed");
  });

  it("a county whose governments were all retired says nothing is listed there now, never 'yet'", async () => {
    await f.store.db
      .updateTable("governments")
      .set({ retired_at: "2026-11-06T00:00:00.000Z" })
      .where("county", "=", "Summit")
      .execute();
    const res = await f.app.request("/counties/Summit");
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    expect($("table.governments").length).toBe(0);
    expect($(".county-count").text()).toContain("Nothing is listed in Summit County now");
    // "Its feeds below stay empty until one is listed": so they are.
    const feed = await (await f.app.request("/new.atom?county=Summit")).text();
    expect(feed).not.toContain("<entry>");
    expect($(".county-count").text()).not.toContain("yet");
  });
});
