import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";

/**
 * P25: "it answers again" asks a person whether to read a source again; `nor mark --read` is
 * the answer, so the question is closed with it (an outside tester saw the flag stay open
 * for nights after the source was read again). Other flags stay a person's to clear.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("marking a source read answers its 'answers again' flag", () => {
  it("P25: nor mark --read clears the source's open answers-again flag, by whom and when; its other flags and other sources' stay open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-mark-flag-"));
    dirs.push(dir);
    const store = await openStore({ kind: "sqlite", dir });
    try {
      const db = store.db;
      const at = "2026-11-20T12:00:00.000Z";
      for (const id of ["a", "b"]) {
        await db
          .insertInto("night_catalog")
          .values({
            source_id: id,
            government: "g",
            url: `https://x.gov/${id}`,
            site: "x.gov",
            updated_at: at,
          })
          .execute();
        await db
          .insertInto("marks")
          .values({
            source_id: id,
            at,
            reading: 0,
            reason: "403 every night",
            by: "op",
            night: "2026-11-20",
          })
          .execute();
      }
      const flag = (id: string, source: string, kind: string) => ({
        id,
        source_id: source,
        kind,
        night: "2026-11-21",
        detail: "d",
        raised_at: at,
        cleared_at: null,
        cleared_by: null,
      });
      await db
        .insertInto("flags")
        .values([
          flag("f1", "a", "answers-again"),
          flag("f2", "a", "no-records"),
          flag("f3", "b", "answers-again"),
        ])
        .execute();
      const when = Date.parse("2026-11-22T09:00:00Z");
      const r = await markSource(db, {
        source: "a",
        reading: true,
        by: "clerk",
        at: when,
        night: "2026-11-22",
      });
      expect(r.kind).toBe("marked");
      const rows = await db
        .selectFrom("flags")
        .select(["id", "cleared_at", "cleared_by"])
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: "f1", cleared_at: "2026-11-22T09:00:00.000Z", cleared_by: "clerk" },
        { id: "f2", cleared_at: null, cleared_by: null },
        { id: "f3", cleared_at: null, cleared_by: null },
      ]);
    } finally {
      await store.close();
    }
  });

  it("P24: the same mark sent twice at once (a form submitted twice) is one mark and one 'already'", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-mark-twice-"));
    dirs.push(dir);
    const store = await openStore({ kind: "sqlite", dir });
    try {
      const db = store.db;
      await db
        .insertInto("night_catalog")
        .values({
          source_id: "a",
          government: "g",
          url: "https://x.gov/a",
          site: "x.gov",
          updated_at: "2026-11-20T12:00:00.000Z",
        })
        .execute();
      const mark = (ms: number) =>
        markSource(db, {
          source: "a",
          reading: false,
          reason: "403 every night",
          by: "op",
          at: ms,
          night: "2026-11-20",
        });
      const t = Date.parse("2026-11-20T12:00:00Z");
      const kinds = (await Promise.all([mark(t), mark(t + 1)])).map((o) => o.kind).sort();
      expect(kinds).toEqual(["already", "marked"]);
      expect(await db.selectFrom("marks").select("at").execute()).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
