import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importedOrStop } from "../../src/cli/import-outcome.js";
import { offlineMessage, progressLine } from "../../src/cli/night-report.js";

const CLI = new URL("../../src/cli/", import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/**
 * A count's noun spelt by hand beside it: `${n} problem${n === 1 ? "" : "s"}`, `${n} ${n === 1 ?
 * "note" : "notes"}`, or a private copy of countOf. Each had its own wording and some forgot
 * the plural ("1 governments", "1 captures read"); the commands say every count through
 * src/cli/count-of.ts.
 */
const BY_HAND = [
  /\$\{[^{}]+\} ?[a-z-]*\$\{[^{}]+=== 1 \? "" : "s"\}/,
  /\$\{[^{}]+\} \$\{[^{}]+=== 1 \? "[a-z -]+" : "[a-z -]+"\}/,
  /const plural = \(n: number/,
];

describe("counts in the commands' words", () => {
  it("every count with its noun goes through countOf (src/cli/count-of.ts), none spelt by hand", () => {
    const found = files(CLI)
      .filter((f) => !f.endsWith("count-of.ts"))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .map((line, i) => [`${f.slice(CLI.length)}:${i + 1}`, line] as const)
          .filter(([, line]) => BY_HAND.some((re) => re.test(line))),
      )
      .map(([at]) => at);
    expect(found).toEqual([]);
  });

  it("one of anything is singular: one site offline, one source in use, one source in the bar", () => {
    expect(offlineMessage({ failedSites: 1, sites: 1, sources: 1 })).toBe(
      "the checker could not reach the internet: 1 of 1 site failed with DNS/connect errors; nothing was judged about them (1 source recorded as checker-offline)",
    );
    expect(() => importedOrStop({ kind: "too-many-retired", retire: ["a"], active: 1 })).toThrow(
      "this import would retire 1 of the 1 source in use (more than a tenth)",
    );
    expect(progressLine({ done: 0, total: 1, requests: 1, deadlineAt: 0 }, 0)).toMatch(
      /^\[#*·*\] 0\/1 source · 1 request · /,
    );
  });
});
