import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, EVIL, type Fixture, NOT_READ_REASON } from "./fixture.js";

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

async function html(path: string, status = 200) {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  const text = await res.text();
  expect(text.startsWith("<!DOCTYPE html>")).toBe(true);
  return { $: load(text), text };
}

describe("the front page and the governments list", () => {
  it("/ shows the frame, the counts, the newest records across Ohio and the counties", async () => {
    const { $ } = await html("/");
    expect($("header .name").text()).toBe("New on Record");
    expect(
      $("header nav a")
        .map((_i, a) => $(a).attr("href"))
        .get(),
    ).toEqual(["/governments", "/new", "/site-owners"]);
    expect($("footer a[href='/site-owners']").length).toBe(1);
    // 5 governments, 4 current sources (old-permits is retired), 8 records.
    expect(
      $(".counts strong")
        .map((_i, s) => $(s).text())
        .get(),
    ).toEqual(["5", "4", "8"]);
    // Since yesterday (the nights of Nov 4 and 5): one record of Nov 4, three of Nov 5.
    expect($("table.new tbody tr").length).toBe(4);
    expect($("form[action='/search'] input[name=q]").length).toBeGreaterThan(0);
    expect($("a[href='/new']").length).toBeGreaterThan(0);
    expect(
      $("ul.counties a")
        .map((_i, a) => $(a).text())
        .get(),
    ).toEqual(["Franklin", "Summit"]);
  });

  it("/governments groups by county, statewide last, with the kinds of records each posts as links", async () => {
    const { $ } = await html("/governments");
    expect(
      $("section.county h2")
        .map((_i, h) => $(h).text())
        .get(),
    ).toEqual(["Franklin County", "Summit County", "Statewide and other"]);
    const row = $("a[href='/governments/village-of-test']").closest("tr");
    expect(
      row
        .find("a[data-records]")
        .map((_i, a) => `${$(a).text()}=${$(a).attr("href")}`)
        .get(),
    ).toEqual(["Agendas=/sources/test-agendas", "Bids=/sources/test-bids"]);
    // The retired source is not listed for Franklin County.
    expect(
      $("a[href='/governments/franklin-county']").closest("tr").find("a[data-records]").length,
    ).toBe(0);
  });

  it("/governments filters by kind and by county (case-insensitive), and keeps the form's choice", async () => {
    const byKind = (await html("/governments?kind=city")).$;
    expect(
      byKind("tbody td:first-child a")
        .map((_i, a) => byKind(a).text())
        .get(),
    ).toEqual(["City of Akron"]);
    expect(byKind("select[name=kind] option[selected]").attr("value")).toBe("city");
    const byCounty = (await html("/governments?county=franklin&kind=")).$;
    expect(
      byCounty("tbody td:first-child a")
        .map((_i, a) => byCounty(a).text())
        .get(),
    ).toEqual(["Franklin County", "Village of Test"]);
    expect(byCounty("select[name=county] option[selected]").attr("value")).toBe("Franklin");
  });

  it("bad filter values are a 400 page that says what is accepted", async () => {
    const kind = await html("/governments?kind=kingdom", 400);
    expect(kind.$(".message").text()).toContain('Unknown kind of government "kingdom"');
    expect(kind.$(".message").text()).toContain("school-district");
    const county = await html("/governments?county=Atlantis", 400);
    expect(county.$(".message").text()).toContain('Unknown county "Atlantis"');
    const evil = await html(`/governments?county=${encodeURIComponent("<b>x</b>")}`, 400);
    expect(evil.text).not.toContain("<b>x</b>");
    expect(evil.$(".message").text()).toContain("<b>x</b>");
  });

  it("a government named with <script> shows as text on every page that names it", async () => {
    for (const path of [
      "/",
      "/governments",
      "/governments/evil-township",
      "/sources/evil-notices",
      "/new",
    ]) {
      const { $, text } = await html(path);
      expect(text, path).not.toContain("<script>");
      expect($("script").length, path).toBe(0);
      expect($("main").text(), path).toContain(EVIL);
    }
    // A record title with markup, and a javascript: link from someone else's list, stay inert.
    const { $, text } = await html("/sources/evil-notices");
    expect(text).not.toContain("<img");
    expect($("main").text()).toContain("<img src=x onerror=alert(1)>");
    expect($("a[href^='javascript:']").length).toBe(0);
  });
});

describe("a government's page", () => {
  it("lists its sources with their links, status and last night", async () => {
    const { $ } = await html("/governments/village-of-test");
    expect($("h1").text()).toBe("Village of Test");
    expect($("dl.facts a[href='https://test.example/']").length).toBe(1);
    const rows = $("table.sources tbody tr");
    expect(rows.map((_i, r) => $(r).attr("id")).get()).toEqual([
      "source-test-agendas",
      "source-test-bids",
    ]);
    const bids = $("#source-test-bids");
    expect(bids.find("a[href='https://test.example/bids']").length).toBe(1);
    expect(bids.find("td").eq(3).text()).toContain("no: refused");
    expect($("#source-test-agendas td").eq(3).text()).toContain("yes");
  });

  it("P26: a source marked not read is still listed, with its link and the reason", async () => {
    const { $ } = await html("/governments/city-of-akron");
    const row = $("#source-akron-minutes");
    expect(row.length).toBe(1);
    expect(row.find("a[href='https://akron.example/minutes']").length).toBe(1);
    expect(row.find("a[href='/sources/akron-minutes']").length).toBe(1);
    expect(row.find("td").eq(2).text()).toContain("not read");
    expect(row.find(".reason").text()).toBe(NOT_READ_REASON);
  });

  it("a retired source is only on its own page; a retired government's page says so", async () => {
    const { $ } = await html("/governments/franklin-county");
    expect($("a[href='/sources/old-permits']").length).toBe(0);
    expect($("main").text()).toContain("No record pages are listed");
    const own = await html("/sources/old-permits");
    expect(own.$(".retired").text()).toContain("Retired");
    expect(own.$(".public-link a").attr("href")).toBe("https://franklin.example/permits.rss");
  });

  it("unknown ids are a 404 page", async () => {
    const g = await html("/governments/nowhere", 404);
    expect(g.$("h1").text()).toBe("Not in the directory");
    expect(g.$(".message").text()).toContain('"nowhere"');
    const s = await html(`/sources/${encodeURIComponent("<i>x</i>")}`, 404);
    expect(s.text).not.toContain("<i>x</i>");
  });
});
