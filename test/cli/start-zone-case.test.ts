import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";

/**
 * `nor start --zone America/New_york` used to be taken (Intl ignores case) and echoed back as
 * written ("the next night runs at … America/New_york"). A zone is written as IANA writes it:
 * the wrong case is refused (exit 2) with the right spelling, before anything is written, and
 * the catalog's `timezone` alike.
 */
describe("nor start --zone: IANA's case", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-zone-case-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("--zone America/New_york is refused, naming America/New_York, and no data directory is made", async () => {
    const data = join(dir, "data");
    const r = await nor("start", "--zone", "America/New_york", "--data", data, "--port", "0");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--zone: "America/New_york" must be written as IANA writes it, America/New_York (time zone names are case-sensitive)',
    );
    expect(existsSync(data)).toBe(false);
  });

  it("a catalog government's timezone: America/New_york is refused with its place and the spelling", async () => {
    const f = join(dir, "c.yaml");
    writeFileSync(
      f,
      "governments:\n  - id: village-of-test\n    name: Village of Test\n    kind: village\n    timezone: America/New_york\nsources: []\n",
    );
    const r = await nor("catalog", "check", f);
    expect(r.code).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toContain(
      `${f}:5:15: governments[0].timezone: must be written as IANA writes it, America/New_York (time zone names are case-sensitive)`,
    );
  });
});
