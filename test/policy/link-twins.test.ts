import { describe, expect, it } from "vitest";
import {
  MOVED_AT_LEAST,
  MOVED_WITHIN_NIGHTS,
  movedMayBe,
  pairMoved,
} from "../../src/policy/link-twins.js";

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
    const m = pairMoved(fresh, fresh, gone, 3, 0);
    expect([...m].map(([id, g]) => [id, g.id])).toEqual(fresh.map((f, i) => [f.id, gone[i]?.id]));
  });

  it("P6: links changed one by one are no move: fewer than two pairs, pairs for less than half the last read, or more than a tenth of it still listed", () => {
    expect(MOVED_AT_LEAST).toBe(2);
    expect(pairMoved(fresh.slice(0, 1), fresh, gone, 3, 0).size).toBe(0);
    expect(pairMoved(fresh.slice(0, 2), fresh, gone, 5, 0).size).toBe(0);
    expect(pairMoved(fresh.slice(0, 2), fresh, gone, 4, 0).size).toBe(2);
    // More than a tenth of the last read's links still listed: links changing one by one.
    expect(pairMoved(fresh, fresh, gone, 6, 0).size).toBe(3);
    expect(pairMoved(fresh, fresh, gone, 6, 1).size).toBe(0);
  });

  it("P6: a title and date shown twice tonight, or by two gone records, or a row without a date, is never paired", () => {
    const twice = [...fresh, r("https://a.gov/d?id=9", "Agenda", "2026-11-02")];
    expect([...pairMoved(fresh, twice, gone, 3, 0).keys()]).toEqual([fresh[1]?.id, fresh[2]?.id]);
    const goneTwice = [...gone, r("https://a.gov/f/9.pdf", "Minutes", "2026-10-20")];
    expect([...pairMoved(fresh, fresh, goneTwice, 4, 0).keys()]).toEqual([
      fresh[0]?.id,
      fresh[2]?.id,
    ]);
    const undated = [r("https://a.gov/d?id=1", "Agenda", null), ...fresh.slice(1)];
    const undatedGone = [r("https://a.gov/f/1.pdf", "Agenda", null), ...gone.slice(1)];
    expect([...pairMoved(undated, undated, undatedGone, 3, 0).keys()]).toEqual([
      fresh[1]?.id,
      fresh[2]?.id,
    ]);
  });
});

describe("pairMoved, titles as stores keep them", () => {
  it("P6: a title with a NUL or a lone surrogate pairs with the same title as SQLite or PostgreSQL gives it back", () => {
    const tonight = [
      r("https://a.gov/d?id=1", "Minutes \ud800A", "2026-10-01"),
      r("https://a.gov/d?id=2", "Agenda\u0000B", "2026-10-02"),
    ];
    const gone = [
      r("https://a.gov/f/1.pdf", "Minutes \ufffd\ufffd\ufffdA", "2026-10-01"),
      r("https://a.gov/f/2.pdf", "Agenda\ufffdB", "2026-10-02"),
    ];
    expect([...pairMoved(tonight, tonight, gone, 2, 0)].map(([id, g]) => [id, g.id])).toEqual([
      ["https://a.gov/d?id=1", "https://a.gov/f/1.pdf"],
      ["https://a.gov/d?id=2", "https://a.gov/f/2.pdf"],
    ]);
  });
});

describe("movedMayBe", () => {
  it("P6: a move is looked for only when the list was last read within MOVED_WITHIN_NIGHTS before tonight", () => {
    expect(MOVED_WITHIN_NIGHTS).toBe(7);
    expect(movedMayBe("2026-11-10", "2026-11-09")).toBe(true);
    expect(movedMayBe("2026-11-10", "2026-11-03")).toBe(true);
    expect(movedMayBe("2026-11-10", "2026-11-02")).toBe(false);
    expect(movedMayBe("2026-11-10", undefined)).toBe(false);
    expect(movedMayBe("2026-11-10", "2026-11-10")).toBe(false);
    expect(movedMayBe("2026-11-10", "2026-11-11")).toBe(false);
  });
});
