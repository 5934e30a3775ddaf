import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture, NOT_READ_REASON, REFUSAL } from "./fixture.js";

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

async function page(id: string) {
  const res = await f.app.request(`/sources/${id}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  return load(await res.text());
}

describe("a source's page", () => {
  it("P23: the night's no is shown with its reason and the evidence (provider and vendor reference id)", async () => {
    const $ = await page("test-bids");
    const no = $("section.last-no");
    expect(no.text()).toContain("The night of Nov 5, the site said no.");
    expect(no.find(".reason").text().trim()).toBe(REFUSAL.reason);
    expect(no.find(".provider").text()).toBe(REFUSAL.provider);
    expect(no.find(".reference").text()).toBe(REFUSAL.reference);
    expect(no.text()).toContain("HTTP 403");
    // The same night in the row of the last nights, labelled and with the reason as its title.
    const cell = $("ol.nights li[data-night='2026-11-05']");
    expect(cell.attr("data-outcome")).toBe("refused");
    expect(cell.text()).toContain("no: refused");
    expect(cell.attr("title")).toBe(REFUSAL.reason);
  });

  it("the last nights at a glance: one labelled cell per night that ran, newest first", async () => {
    const $ = await page("test-agendas");
    const cells = $("ol.nights li");
    expect(cells.map((_i, li) => $(li).attr("data-night")).get()).toEqual([
      "2026-11-05",
      "2026-11-04",
      "2026-11-03",
    ]);
    expect(cells.map((_i, li) => $(li).attr("data-outcome")).get()).toEqual([
      "ok",
      "unchanged",
      "ok",
    ]);
    expect(cells.eq(0).text()).toContain("2 new");
    expect($("section.last-no").length).toBe(0);
  });

  it("a night the source was not checked says so instead of leaving a gap", async () => {
    const $ = await page("akron-minutes");
    const cells = $("ol.nights li");
    expect(cells.length).toBe(3);
    expect(cells.eq(0).text()).toContain("not checked");
    expect(cells.eq(2).attr("data-outcome")).toBe("ok");
  });

  it("P26: a source marked not read has its page with the link, the reason and since when", async () => {
    const $ = await page("akron-minutes");
    expect($(".public-link a").attr("href")).toBe("https://akron.example/minutes");
    const status = $(".read-status");
    expect(status.text()).toContain("not read");
    expect(status.find(".reason").text()).toBe(NOT_READ_REASON);
    expect(status.find("time").attr("datetime")).toBe("2026-11-04T14:00:00.000Z");
    expect(status.find("time").text()).toBe("Nov 4, 2026 9:00 AM ET");
  });

  it("P6: newest records link to the records' own URLs, newest date first, dates in Ohio time", async () => {
    const $ = await page("test-agendas");
    const rows = $("table.records tbody tr");
    expect(rows.length).toBe(4);
    const hrefs = rows.map((_i, r) => $(r).find("a.record").attr("href")).get();
    expect(hrefs[0]).toBe("https://test.example/r/22");
    expect(hrefs.every((h: string) => h.startsWith("https://test.example/r/"))).toBe(true);
    // 2026-11-04T23:30Z is the evening of Nov 4 in New York.
    expect(rows.eq(0).find("td").eq(1).text()).toBe("Nov 4, 2026");
    expect(rows.eq(0).find("td").eq(2).text()).toBe("Agendas");
  });

  it("P4: the way in the last night used is shown", async () => {
    const $ = await page("test-agendas");
    const way = $(".way");
    expect(way.text()).toContain("feed");
    expect(way.find("a").attr("href")).toBe("https://test.example/agendas.rss");
    expect((await page("test-bids"))(".way").text()).toBe("none worked the night of Nov 5");
  });
});
