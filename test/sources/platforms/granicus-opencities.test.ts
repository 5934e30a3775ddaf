import { describe, expect, it } from "vitest";
import { fixture, preset, run } from "./helpers.js";

const COLUMBUS = "https://www.columbus.gov/ocapi/calendars/getcalendaritems";
const FILE = "granicus-opencities/OH_columbus_ocapi_getcalendaritems.json";

describe("granicus-opencities preset", () => {
  it("Columbus: 71 items = 52 meetings + 19 'No Meetings' placeholders, which are not records", () => {
    const x = run("granicus-opencities", FILE, COLUMBUS);
    expect(x.records).toHaveLength(52);
    expect(x.records.filter((r) => r.title === "Council Meeting")).toHaveLength(26);
    expect(x.records.filter((r) => r.title === "Council Zoning Meeting")).toHaveLength(26);
    expect(x.records.some((r) => /no meetings/i.test(r.title))).toBe(false);
    expect(x.note).toBe('19 "No Meetings" placeholders skipped');
  });

  it("mixed day/month orders in one answer: group 02/03/2026 (day first) and 3/2/2026 (month first) are 2 March", () => {
    const x = run("granicus-opencities", FILE, COLUMBUS);
    expect(x.records[0]).toEqual({
      id: "de8af8f6-5e5d-40e2-b2af-b28d35d49d85",
      title: "Council Meeting",
      date: "2026-03-02T17:00:00-05:00",
      kind: "meetings",
    });
    // Groups are not in date order; the latest is 14/12/2026, 12/14/2026 5:00 PM.
    const latest = x.records
      .map((r) => r.date!)
      .sort()
      .at(-1);
    expect(latest).toBe("2026-12-14T18:30:00-05:00");
    expect(
      x.records.some(
        (r) => r.date === "2026-12-14T17:00:00-05:00" && r.title === "Council Meeting",
      ),
    ).toBe(true);
    // P6: the list gives no page per item; none is made up.
    expect(x.records.every((r) => r.url === undefined)).toBe(true);
  });
});

describe("P6: granicus-opencities dates decided by the answer, times kept (an answer written day-first throughout)", () => {
  const json = () =>
    JSON.parse(new TextDecoder().decode(fixture(FILE))) as {
      data: { DD: number; MM: number; Items: { DateTime: string }[] }[];
    };
  const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  /** `3/2/2026 5:00:00 PM` written day-first: `2/3/2026 5:00:00 PM`. */
  const dayFirst = (s: string) => s.replace(/^(\d{1,2})\/(\d{1,2})\//, "$2/$1/");

  it("an answer that writes both dates day-first keeps every meeting's time", () => {
    const base = run("granicus-opencities", FILE, COLUMBUS);
    const v = json();
    for (const g of v.data) for (const it of g.Items) it.DateTime = dayFirst(it.DateTime);
    const x = preset("granicus-opencities").extract(encode(v), COLUMBUS);
    expect(x.records).toEqual(base.records);
    expect(x.records.every((r) => /T\d{2}:\d{2}/.test(r.date ?? ""))).toBe(true);
  });

  it("when no item value decides, the reading that agrees with its group's day wins, time kept", () => {
    const v = json();
    // Only days 1–12 of each month, written day-first: every value alone is ambiguous.
    v.data = v.data.filter((g) => g.DD <= 12);
    for (const g of v.data) for (const it of g.Items) it.DateTime = dayFirst(it.DateTime);
    const x = preset("granicus-opencities").extract(encode(v), COLUMBUS);
    expect(x.records.length).toBeGreaterThan(10);
    expect(x.records[0]).toMatchObject({
      title: "Council Meeting",
      date: "2026-03-02T17:00:00-05:00",
    });
    expect(x.records.every((r) => /T\d{2}:\d{2}/.test(r.date ?? ""))).toBe(true);
  });

  it("a government in another zone gets its own offset", () => {
    const x = preset("granicus-opencities").extract(fixture(FILE), COLUMBUS, {
      zone: "America/Chicago",
    });
    expect(x.records[0]!.date).toBe("2026-03-02T17:00:00-06:00");
  });
});
