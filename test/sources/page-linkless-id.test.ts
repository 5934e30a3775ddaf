import { describe, expect, it } from "vitest";
import { recordsFromJson } from "../../src/sources/extract/api.js";
import { extractPage } from "../../src/sources/extract/page.js";
import { recordId } from "../../src/sources/record-id.js";

/**
 * P6, P11: a record without a link is known by its title and its date as its own row reads it;
 * the page's other rows decide only the date it is stored with.
 */
const recipe = { items: "#t tr", title: "td.title", date: "td.d" };
const page = (rows: readonly (readonly [string, string])[]) =>
  new TextEncoder().encode(
    `<table id="t">${rows.map(([t, d]) => `<tr><td class="title">${t}</td><td class="d">${d}</td></tr>`).join("")}</table>`,
  );
const URL = "https://city.example.gov/minutes";

describe("page records without a link", () => {
  it("P6, P11: keep their ids when a row added to the page turns how its dates are read; their dates follow the page", () => {
    const before = extractPage(
      page([
        ["Council Minutes", "01/02/2026"],
        ["Zoning Minutes", "03/04/2026"],
      ]),
      URL,
      recipe,
    ).records;
    const after = extractPage(
      page([
        ["Council Minutes", "01/02/2026"],
        ["Zoning Minutes", "03/04/2026"],
        ["Budget Hearing", "13/02/2026"],
      ]),
      URL,
      recipe,
    ).records;
    expect(before.map((r) => r.date)).toEqual(["2026-01-02", "2026-03-04"]);
    expect(after.map((r) => r.date)).toEqual(["2026-02-01", "2026-04-03", "2026-02-13"]);
    expect(after.slice(0, 2).map((r) => r.id)).toEqual(before.map((r) => r.id));
    // The ids earlier builds gave them on a month-first page, and to the day-first row alone.
    expect(before.map((r) => r.id)).toEqual([
      recordId({ title: "Council Minutes", date: "2026-01-02" }),
      recordId({ title: "Zoning Minutes", date: "2026-03-04" }),
    ]);
    expect(after[2]?.id).toBe(recordId({ title: "Budget Hearing", date: "2026-02-13" }));
  });

  it("P6: a row that decides its own order, or has a link, is read as before", () => {
    const rs = extractPage(
      page([
        ["Council Minutes", "13/02/2026 6:00 PM"],
        ["Zoning Minutes", "<a href='/z.pdf'>03/04/2026</a>"],
      ]),
      URL,
      { ...recipe, link: "td.d a" },
    ).records;
    expect(rs).toEqual([
      {
        id: recordId({ title: "Council Minutes", date: "2026-02-13T18:00:00-05:00" }),
        title: "Council Minutes",
        date: "2026-02-13T18:00:00-05:00",
      },
      {
        id: "https://city.example.gov/z.pdf",
        title: "Zoning Minutes",
        date: "2026-04-03",
        url: "https://city.example.gov/z.pdf",
      },
    ]);
  });
});

describe("api records without an id or a link", () => {
  it("P6, P11: keep their ids when an item added to the answer turns how its dates are read", () => {
    const spec = { items: "value", title: "name", date: "when" };
    const read = (items: readonly (readonly [string, string])[]) =>
      recordsFromJson(
        { value: items.map(([name, when]) => ({ name, when })) },
        spec,
        "https://city.example.gov/api/minutes",
      ).records;
    const before = read([["Council Minutes", "01/02/2026"]]);
    const after = read([
      ["Council Minutes", "01/02/2026"],
      ["Budget Hearing", "13/02/2026"],
    ]);
    expect(before.map((r) => r.date)).toEqual(["2026-01-02"]);
    expect(after[0]?.date).toBe("2026-02-01");
    expect(after[0]?.id).toBe(before[0]?.id);
  });
});
