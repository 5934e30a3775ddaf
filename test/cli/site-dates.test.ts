import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AdmitInput, admit } from "../../src/policy/admission.js";
import { openStore } from "../../src/store/db.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { nor } from "./cli-capture.js";

/**
 * An owner's request entered at 20:11 in New York on 2026-12-04 is 01:11 UTC on 2026-12-05.
 * `nor site` and the left-alone / not-read reason in the request log say the New York date,
 * as the console's "2026-12-04 20:11 -05:00" does: never the next day.
 */
const AT = Date.parse("2026-12-05T01:11:00Z");

function input(extra: Partial<AdmitInput>): AdmitInput {
  return {
    night: "2026-12-05",
    now: AT + 3_600_000,
    holder: "host:1:me",
    gapMs: 2000,
    isRobots: false,
    path: "/permits/2026",
    site: {},
    rules: [],
    prior: [],
    replayAllowed: true,
    holderDead: () => false,
    ...extra,
  };
}

describe("owners' requests are dated in New York", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P27: the request log's left-alone and not-read reasons give the New York date", () => {
    const alone = admit(
      input({ rules: [{ kind: "leave-alone", prefix: "/permits/", reason: "e-mail", at: AT }] }),
    );
    expect(alone).toEqual({
      kind: "left-alone",
      reason: "the site's owner asked for /permits/ to be left alone (2026-12-04: e-mail)",
    });
    const notRead = admit(input({ rules: [{ kind: "not-read", reason: "phone", at: AT }] }));
    expect(notRead).toEqual({
      kind: "closed",
      reason: "the site's owner asked not to be read (2026-12-04: phone)",
    });
  });

  it("`nor site` lists a rule entered at 20:11 New York on Dec 4 as since 2026-12-04", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-site-dates-"));
    dirs.push(dir);
    const store = await openStore({ kind: "sqlite", dir });
    await setSiteRule(store.db, {
      site: "example.gov",
      kind: "leave-alone",
      value: "/permits/",
      reason: "owner, e-mail",
      at: AT,
      by: "ops",
    });
    await store.close();
    const r = await nor("site", "example.gov", "--data", dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "example.gov: /permits/ left alone (since 2026-12-04, by ops: owner, e-mail)",
    );
    expect(r.stdout).not.toContain("2026-12-05");
  });
});
