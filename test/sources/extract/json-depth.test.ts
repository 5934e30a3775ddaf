import { describe, expect, it } from "vitest";
import { extractApi } from "../../../src/sources/extract/api.js";
import { MAX_JSON_DEPTH, parseJsonText } from "../../../src/sources/extract/json.js";

const nested = (depth: number, inner = ""): string =>
  `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

/**
 * An outside tester's finding (P13, P14): a JSON answer of 10,000,000 nested arrays (20 MB,
 * under the 20 MiB body limit) was parsed whole: about 1 GB of memory at its peak and 9 s of
 * CPU (extractApi on dist, measured), for an answer no records list is shaped like. The one
 * JSON reader now counts the nesting in one pass before JSON.parse (strings and their escapes
 * skipped) and refuses an answer deeper than MAX_JSON_DEPTH with a note: the bound enforced is
 * asserted, never the time or the memory.
 */
describe("P13, P14: a JSON answer nested deeper than MAX_JSON_DEPTH is not parsed", () => {
  it("P13, P14: 10,000,000 nested arrays (20 MB) are refused with a note naming the bound, no records, another way still tried", () => {
    const body = new TextEncoder().encode(nested(10_000_000));
    const x = extractApi(body, "https://ex.test/api", { items: "value", title: "t" });
    expect(x.records).toEqual([]);
    expect(x.notThisWay).toBe(true);
    expect(x.note).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  it("P13, P14: 3,000,000 nested objects are refused alike", () => {
    const r = parseJsonText(`${'{"a":'.repeat(3_000_000)}1${"}".repeat(3_000_000)}`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.why).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  it("P14: an answer exactly MAX_JSON_DEPTH deep is read; one level more is not", () => {
    expect(parseJsonText(nested(MAX_JSON_DEPTH, "1")).ok).toBe(true);
    expect(parseJsonText(nested(MAX_JSON_DEPTH + 1, "1")).ok).toBe(false);
  });

  it("P14: brackets inside strings, escaped quotes and backslashes among them, are not nesting", () => {
    const title = `${"[{".repeat(2_000)}\\"${"[".repeat(2_000)}\\\\`;
    const text = `{"value":[{"t":"${title}"}]}`;
    const r = parseJsonText(text);
    expect(r.ok).toBe(true);
    const x = extractApi(new TextEncoder().encode(text), "https://ex.test/api", {
      items: "value",
      title: "t",
    });
    expect(x.records).toHaveLength(1);
  });

  it("P14: a string that never ends is the parser's to say, not counted as nesting", () => {
    const r = parseJsonText(`{"value":"${"[".repeat(5_000)}`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.why).toMatch(/^not JSON: /);
    if (!r.ok) expect(r.why).not.toContain("levels");
  });
});
