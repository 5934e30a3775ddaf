import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTimeWindow } from "../../src/store/time-args.js";
import { ROOT } from "./run-nor.js";

/**
 * docs/operations.md, "Answering a site owner": the example commented "the whole day" must ask
 * for that day only. With `--since` alone it read everything from that day until now.
 */
describe("docs/operations.md's `nor log` example for a whole day", () => {
  it("P27: its --since and --until are the whole of Nov 5 in New York, and nothing after", () => {
    const doc = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");
    const line = doc.split("\n").find((l) => l.includes("# the whole day"));
    expect(line).toBeDefined();
    const value = (flag: string) =>
      new RegExp(`${flag} ("[^"]*"|\\S+)`).exec(line as string)?.[1]?.replace(/"/g, "");
    const since = value("--since");
    const until = value("--until");
    expect(since).toBe("2026-11-05");
    expect(until).toBe("2026-11-05");
    const window = parseTimeWindow({
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
    });
    // 00:00 to 24:00 New York (EST, UTC−5): [05:00Z Nov 5, 05:00Z Nov 6).
    expect(window).toEqual({
      since: Date.UTC(2026, 10, 5, 5),
      until: Date.UTC(2026, 10, 6, 5),
    });
  });
});
