import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { oneSourceStore } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * `nor site X` says tonight's state of the site beside the owner's requests (a no the site
 * said, a hold until a time); `--json` left it out. It is one more line, `"kind": "state"`.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("nor site X --json", () => {
  it("P23: gives the site's no and its hold, as the text form does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-site-json-"));
    dirs.push(dir);
    const data = await oneSourceStore(dir, "Json", "json-agendas");
    const set = await nor(
      "site",
      "example.gov",
      "--gap",
      "30s",
      "--reason",
      "owner, e-mail of 2026-11-20",
      "--data",
      data,
    );
    expect(set.code, set.stderr).toBe(0);
    // No state yet: the requests only, in both forms.
    const plain = await nor("site", "example.gov", "--json", "--data", data);
    expect(plain.code, plain.stderr).toBe(0);
    expect(
      plain.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).kind),
    ).toEqual(["gap"]);

    const held = new Date(Date.now() + 3_600_000).toISOString();
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      await store.db
        .insertInto("site_state")
        .values({
          site: "example.gov",
          last_end_at: null,
          updated_at: new Date().toISOString(),
          closed_night: "2026-11-05",
          closed_reason: "403 Forbidden:\tby\u009b2J the site",
          not_before: held,
        })
        .execute();
    } finally {
      await store.close();
    }
    const text = await nor("site", "example.gov", "--data", data);
    // The site's words in its reason: one line of spaces, as nor status and nor flags say them.
    expect(text.stdout).toContain(
      "example.gov: said no on the night of 2026-11-05: 403 Forbidden: by 2J the site\n",
    );
    expect(text.stdout).toContain(`example.gov: held until ${held}`);
    const json = await nor("site", "example.gov", "--json", "--data", data);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(/[\u0080-\u009f]/);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l["kind"])).toEqual(["gap", "state"]);
    // tester-b 5: the request's time in ISO 8601, as every other time of this output.
    expect(lines[0]?.["at"]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(lines[1]).toEqual({
      site: "example.gov",
      kind: "state",
      closedNight: "2026-11-05",
      closedReason: "403 Forbidden:\tby\u009b2J the site",
      heldUntil: held,
    });
    // Every site listed (no site named): the requests only, as the text form.
    const all = await nor("site", "--json", "--data", data);
    expect(
      all.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).kind),
    ).toEqual(["gap"]);
  });
});
