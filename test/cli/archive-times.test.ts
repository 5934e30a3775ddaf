import { describe, expect, it } from "vitest";
import { parseWhen } from "../../src/cli/commands/archive.js";
import { runMain } from "./cli-capture.js";

/**
 * `nor archive show --at` and `nor reparse --since` read a time as `nor log` does: a zone as
 * written, none New York time (never the machine's), to the precision written. An operator
 * answering a site owner about a page read at 20:10 New York on Dec 4 (01:10 UTC on Dec 5)
 * finds it by that day and that minute whatever zone the machine is in.
 */
describe("the times of nor archive show --at and nor reparse --since", () => {
  it("P27, P8: a date is the New York day, a time without a zone New York time, a zone as written", () => {
    // Dec 4 in New York (EST, UTC-5): 05:00 UTC on Dec 4 to 04:59:59.999 UTC on Dec 5.
    expect(parseWhen("2026-12-04", "--at", "end")).toBe(Date.parse("2026-12-05T04:59:59.999Z"));
    expect(parseWhen("2026-12-04", "--since", "start")).toBe(Date.parse("2026-12-04T05:00:00Z"));
    // A minute written without a zone: that New York minute, to its end for --at.
    expect(parseWhen("2026-12-04 20:11", "--at", "end")).toBe(
      Date.parse("2026-12-05T01:11:59.999Z"),
    );
    expect(parseWhen("2026-12-04T20:11", "--since", "start")).toBe(
      Date.parse("2026-12-05T01:11:00Z"),
    );
    // With a zone: as written.
    expect(parseWhen("2026-12-05T01:10:28Z", "--at", "end")).toBe(
      Date.parse("2026-12-05T01:10:28.999Z"),
    );
    expect(() => parseWhen("last tuesday", "--at", "end")).toThrow(/--at/);
  });

  it("P27: nor archive show refuses a value that is no http(s) URL as a typo (exit 2), before the store is opened", async () => {
    for (const bad of ["not a url", "ftp://x.gov/a"]) {
      const r = await runMain(["archive", "show", bad, "--data", "/nonexistent-nor-data"]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`"${bad}" is not`);
    }
  });
});
