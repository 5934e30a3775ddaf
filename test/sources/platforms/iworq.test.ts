import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const URL1 =
  "https://townoflakehamilton.portal.iworq.net/LAKEHAMILTON/permits/601?searchField=permit_dt_range&startDate=2025-04-18&endDate=2026-04-18";

describe("iworq preset", () => {
  it("P6: Lake Hamilton's permit list: 15 ids and links only, and the note says so", () => {
    const x = run("iworq", "iworq/FL_lakehamilton_iworq_permits_365d_page1.html", URL1);
    // The table and its mobile copy give 30 View links for 15 permits.
    expect(x.records).toHaveLength(15);
    expect(x.records[0]).toEqual({
      id: "permit:601/28656066",
      title: "Permit 28656066",
      url: "https://townoflakehamilton.portal.iworq.net/LAKEHAMILTON/permit/601/28656066",
      kind: "permits",
    });
    expect(x.records.at(-1)!.id).toBe("permit:601/26183768");
    expect(x.records.every((r) => r.date === undefined)).toBe(true);
    expect(x.note).toBe("list gives permit ids only: no titles or dates");
  });

  it("P7: page 1 of 2 points at &page=2", () => {
    const x = run("iworq", "iworq/FL_lakehamilton_iworq_permits_365d_page1.html", URL1);
    expect(x.next).toBe(`${URL1}&page=2`);
    expect(preset("iworq").nextRequest!({ method: "GET", url: URL1 }, x.body, x)?.url).toBe(x.next);
  });
});
