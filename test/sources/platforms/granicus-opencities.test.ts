import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

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
