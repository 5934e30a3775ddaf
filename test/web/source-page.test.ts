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
    // The same night on the strip (its title names outcome and reason) and in the table.
    const cell = $(".strip svg a[data-night='2026-11-05']");
    expect(cell.attr("href")).toBe("#night-2026-11-05");
    expect(cell.find("title").text()).toBe(`Nov 5: no: refused: ${REFUSAL.reason}`);
    const row = $("tr#night-2026-11-05");
    expect(row.find(".status").text()).toBe("no: refused");
    expect(row.find(".reference").text()).toBe(REFUSAL.reference);
  });

  it("P23: the last 30 nights as an SVG strip, each night a tap target opening its row in words; the table's rows are the nights for keyboards and screen readers, each once", async () => {
    const $ = await page("test-agendas");
    const links = $(".strip svg a");
    expect(links.length).toBe(30);
    // Oldest first on the strip; every cell has a <title> in words and its target row exists
    // in the table, which lists the same 30 nights newest first.
    const targets = links.map((_i, a) => $(a).attr("href")).get();
    const rows = $("table.nights tbody tr");
    expect(rows.length).toBe(30);
    expect(rows.map((_i, tr) => `#${$(tr).attr("id")}`).get()).toEqual([...targets].reverse());
    for (const a of links.toArray()) {
      expect($(a).find("title").text()).toMatch(/^[A-Z][a-z]{2} \d{1,2}: \S/);
      // Not said twice: the picture is hidden from assistive technology and out of the Tab
      // order; the row says the night.
      expect($(a).attr("tabindex")).toBe("-1");
      expect($(a).attr("aria-label")).toBeUndefined();
    }
    expect($(".strip svg").attr("aria-hidden")).toBe("true");
    // Each row's header is its night, a link to the row itself (one Tab stop per night).
    for (const tr of rows.toArray()) {
      const a = $(tr).find("th[scope=row] a.night");
      expect(a.attr("href")).toBe(`#${$(tr).attr("id")}`);
    }
    expect(targets.at(-1)).toBe("#night-2026-11-05");
    expect(
      rows
        .slice(0, 4)
        .map((_i, tr) => `${$(tr).attr("data-state")}:${$(tr).find(".status").text()}`)
        .get(),
    ).toEqual([
      "checked:yes",
      "checked:yes, unchanged",
      "checked:yes",
      "offline:checker offline (no night ran)",
    ]);
    expect(rows.eq(0).find("td").eq(1).text()).toBe("2");
    expect($("section.last-no").length).toBe(0);
  });

  it("P23: a night the source was not checked says so, a night that never ran while it was listed says the checker was offline, and a night before the directory's first says so", async () => {
    const $ = await page("akron-minutes");
    expect($("tr#night-2026-11-05").attr("data-state")).toBe("not-checked");
    expect($("tr#night-2026-11-05").text()).toContain("not checked that night");
    expect($("tr#night-2026-11-03 .status").text()).toBe("yes");
    // Listed on Oct 31 (fixture): Nov 1 and 2 had no night at all, an outage.
    expect($("tr#night-2026-11-01").attr("data-state")).toBe("offline");
    expect($("tr#night-2026-10-31").attr("data-state")).toBe("offline");
    // The directory's first night was Oct 25 (fixture): before it, no outage is claimed.
    expect($("tr#night-2026-10-20").attr("data-state")).toBe("before");
    expect($("tr#night-2026-10-20").text()).toContain("before the directory began checking");
  });

  it("P23: nights after the directory's first but before the page was added to the catalog say it was not yet listed, never 'checker offline', on the strip and in the API", async () => {
    // The directory's first night was Oct 25; the catalog came on Oct 31, 11:00 New York.
    const $ = await page("akron-minutes");
    for (const n of ["2026-10-25", "2026-10-26", "2026-10-28", "2026-10-30"]) {
      const row = $(`tr#night-${n}`);
      expect(row.attr("data-state"), n).toBe("not-yet-listed");
      expect(row.text(), n).toContain("not yet listed in the directory");
      expect(row.text(), n).not.toContain("offline");
      expect($(`.strip a[data-night='${n}'] title`).text(), n).not.toContain("offline");
    }
    const api = (await (await f.app.request("/api/sources/akron-minutes")).json()) as {
      nights: { night: string; state: string }[];
    };
    const state = new Map(api.nights.map((n) => [n.night, n.state]));
    expect(state.get("2026-10-28")).toBe("not-yet-listed");
    expect(state.get("2026-10-25")).toBe("not-yet-listed");
    expect(state.get("2026-11-01")).toBe("offline");
    expect(state.get("2026-10-20")).toBe("before");
  });

  it("P23: nights after a page was retired from the catalog say so, never 'checker offline' or 'not checked'", async () => {
    // old-permits was retired on Nov 1, 11:00 New York (fixture); it was listed on Oct 31.
    const $ = await page("old-permits");
    for (const n of ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-05"]) {
      expect($(`tr#night-${n}`).attr("data-state"), n).toBe("retired");
      expect($(`tr#night-${n}`).text(), n).toContain("not in the directory's catalog (retired)");
    }
    expect($("tr#night-2026-10-31").attr("data-state")).toBe("offline");
    expect($("tr#night-2026-10-28").attr("data-state")).toBe("not-yet-listed");
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
