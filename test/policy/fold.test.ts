import { describe, expect, it } from "vitest";
import { FOLD_FROM, FOLD_TO, foldLetters } from "../../src/policy/fold.js";

describe("letters folded for search", () => {
  it("are exactly the letters of U+00C0–U+024F and U+1E00–U+1EFF that decompose to one ASCII letter and marks, each to that letter", () => {
    let from = "";
    let to = "";
    for (const [a, b] of [
      [0xc0, 0x24f],
      [0x1e00, 0x1eff],
    ] as const) {
      for (let c = a; c <= b; c++) {
        const ch = String.fromCodePoint(c);
        const d = ch.normalize("NFD");
        if (d.length > 1 && /^[A-Za-z]\p{M}+$/u.test(d)) {
          from += ch;
          to += d[0];
        }
      }
    }
    expect(FOLD_FROM).toBe(from);
    expect(FOLD_TO).toBe(to);
    expect([...FOLD_FROM]).toHaveLength([...FOLD_TO].length);
  });

  it("fold a title's letters, and leave the rest", () => {
    expect(foldLetters("Résumé of café, ÉCOLE, Ørsted, Łódź")).toBe(
      "Resume of cafe, ECOLE, Ørsted, Łodz",
    );
  });
});
