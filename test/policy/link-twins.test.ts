import { describe, expect, it } from "vitest";
import { MOVED_AT_LEAST, pairMoved } from "../../src/policy/link-twins.js";

const r = (id: string, title: string, date: string | null) => ({ id, title, date });

describe("pairMoved", () => {
  const gone = [
    r("https://a.gov/f/1.pdf", "Agenda", "2026-11-02"),
    r("https://a.gov/f/2.pdf", "Minutes", "2026-10-20"),
    r("https://a.gov/f/3.pdf", "Notice", "2026-10-01"),
  ];
  const fresh = [
    r("https://a.gov/d?id=1", "Agenda", "2026-11-02"),
    r("https://a.gov/d?id=2", "Minutes", "2026-10-20"),
    r("https://a.gov/d?id=3", "Notice", "2026-10-01"),
  ];

  it("P6: pairs each moved record with the gone one that shows its title and date", () => {
    const m = pairMoved(fresh, fresh, gone, 3);
    expect([...m].map(([id, g]) => [id, g.id])).toEqual(fresh.map((f, i) => [f.id, gone[i]?.id]));
  });

  it("P6: a few links changed are no move: fewer than two pairs, or pairs for less than half the last read", () => {
    expect(MOVED_AT_LEAST).toBe(2);
    expect(pairMoved(fresh.slice(0, 1), fresh, gone, 3).size).toBe(0);
    expect(pairMoved(fresh.slice(0, 2), fresh, gone, 5).size).toBe(0);
    expect(pairMoved(fresh.slice(0, 2), fresh, gone, 4).size).toBe(2);
  });

  it("P6: a title and date shown twice tonight, or by two gone records, or a row without a date, is never paired", () => {
    const twice = [...fresh, r("https://a.gov/d?id=9", "Agenda", "2026-11-02")];
    expect([...pairMoved(fresh, twice, gone, 3).keys()]).toEqual([fresh[1]?.id, fresh[2]?.id]);
    const goneTwice = [...gone, r("https://a.gov/f/9.pdf", "Minutes", "2026-10-20")];
    expect([...pairMoved(fresh, fresh, goneTwice, 4).keys()]).toEqual([fresh[0]?.id, fresh[2]?.id]);
    const undated = [r("https://a.gov/d?id=1", "Agenda", null), ...fresh.slice(1)];
    const undatedGone = [r("https://a.gov/f/1.pdf", "Agenda", null), ...gone.slice(1)];
    expect([...pairMoved(undated, undated, undatedGone, 3).keys()]).toEqual([
      fresh[1]?.id,
      fresh[2]?.id,
    ]);
  });
});
