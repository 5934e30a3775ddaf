import { describe, expect, it } from "vitest";
import { extractApi } from "../../src/sources/extract/api.js";
import { parseJsonText } from "../../src/sources/extract/json.js";

/**
 * tbombs: json.ts strips `//` comment lines before the payload with one regular expression,
 * `/^(?:\s*\/\/[^\n]*\n)+/`. A body of a few million such lines (18 MB, under the 20 MiB body
 * limit) overflows the regular expression's backtracking stack: a RangeError ("Maximum call
 * stack size exceeded") escapes the reader, where an answer that is not JSON is a note (P13, P14).
 */
describe("tbombs: JSON answer made of millions of // lines", () => {
  const text = `${"//\n".repeat(6_000_000)}{"value":[{"t":"a"}]}`;

  it("P14: parseJsonText does not throw on 6,000,000 comment lines", () => {
    let read: ReturnType<typeof parseJsonText> | undefined;
    expect(() => {
      read = parseJsonText(text);
    }).not.toThrow();
    expect(read).toBeDefined();
  });

  it("P14: an api way's reader answers with records or a note, never a throw", () => {
    const body = new TextEncoder().encode(text);
    expect(() =>
      extractApi(body, "https://ex.test/api", { items: "value", title: "t" }),
    ).not.toThrow();
  });
});
