import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";

/**
 * `nor start --zone` takes what the catalog's `timezone` takes: an IANA Area/City zone. A
 * fixed-offset legacy zone such as EST (no daylight time) is refused with the catalog's words,
 * before anything is written.
 */
const RULE =
  "must be an IANA time zone such as America/New_York or America/Chicago (an Area/City name, not an abbreviation like EST)";

describe("nor start --zone", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-zone-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(["EST", "EST5EDT", "Ohio/Akron", "est"])(
    "%s is refused (exit 2) with the catalog's wording, and no data directory is made",
    async (zone) => {
      const data = join(dir, `data-${zone.replace("/", "-")}`);
      const r = await nor("start", "--zone", zone, "--data", data, "--port", "0");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--zone: "${zone}" ${RULE}`);
      expect(existsSync(data)).toBe(false);
    },
  );

  it("the catalog refuses the same zone with the same words", async () => {
    const f = join(dir, "c.yaml");
    writeFileSync(
      f,
      "governments:\n  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin, timezone: EST }\nsources: []\n",
    );
    const r = await nor("catalog", "check", f);
    expect(r.code).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toContain(`timezone: ${RULE}`);
  });
});
