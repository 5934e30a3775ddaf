import { describe, expect, it } from "vitest";
import { withoutCommentLines } from "../../../src/sources/extract/json.js";

/** The expression json.ts used before, whose backtracking overflowed on millions of lines. */
const OLD = /^(?:\s*\/\/[^\n]*\n)+/;

describe("withoutCommentLines", () => {
  const inputs = [
    "",
    "{}",
    "// a\n{}",
    "// a\n// b\n[1]",
    "  // a\n\t\n  // b\r\n {}",
    "// only a comment",
    "// a\n// no end",
    "\n\n// a\n{}",
    "/ not a comment\n{}",
    "{} // after\n",
    " \u00a0// nbsp\n{}",
    "//\n".repeat(50) + "{}",
    "   ",
    "// a\n   ",
  ];
  for (const input of inputs)
    it(`P14: strips what the old expression stripped from ${JSON.stringify(input.slice(0, 30))}`, () => {
      expect(withoutCommentLines(input)).toBe(input.replace(OLD, ""));
    });
});
