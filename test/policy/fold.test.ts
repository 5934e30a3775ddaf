import { describe, expect, it } from "vitest";
import { FOLD_FROM, FOLD_TO, foldLetters } from "../../src/policy/fold.js";

describe("letters folded for search", () => {
  it("are exactly the letters of U+00C0–U+017F that decompose to one ASCII letter and marks, each to that letter", () => {
    let from = "";
    let to = "";
    for (let c = 0xc0; c <= 0x17f; c++) {
      const ch = String.fromCodePoint(c);
      const d = ch.normalize("NFD");
      if (d.length > 1 && /^[A-Za-z]\p{M}+$/u.test(d)) {
        from += ch;
        to += d[0];
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
