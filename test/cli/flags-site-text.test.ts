import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { oneSourceStore } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * `nor flags` lays its rows out with tabs (id, kind, source, detail). A detail holding a site's
 * tab (or a line break, an escape) was written with the tab raw: one more column, or one more
 * row. It is one line of spaces there, as `nor status`'s table says a reason; `--json` keeps the
 * text as the store holds it, JSON's own escapes.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("nor flags: a site's text in a flag's detail", () => {
  it("P24, P27: a tab, a line break or an escape in the detail keeps the row to its four columns, shown as spaces; --json keeps it as stored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-flags-text-"));
    dirs.push(dir);
    const data = await oneSourceStore(dir, "Tabs", "tabs-agendas");
    const detail = "answered 403 on recheck:\tForbidden\nby\u001b[2J the\u009bsite";
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      await store.db
        .insertInto("flags")
        .values({
          id: "f1",
          source_id: "tabs-agendas",
          kind: "answers-again",
          night: "2026-11-05",
          detail,
          raised_at: new Date().toISOString(),
          cleared_at: null,
          cleared_by: null,
        })
        .execute();
    } finally {
      await store.close();
    }
    const r = await nor("flags", "--data", data);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split("\n");
    expect(rows).toEqual([
      "f1\tanswers-again\ttabs-agendas\tanswered 403 on recheck: Forbidden by [2J the site",
    ]);
    const json = await nor("flags", "--data", data, "--json");
    expect((JSON.parse(json.stdout) as { detail: string }[])[0]?.detail).toBe(detail);
  });
});
