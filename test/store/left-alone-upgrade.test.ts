import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { flagsFor } from "../../src/night/flags.js";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { leftAt, rawStore, storeFactories } from "./stores.js";

/**
 * Migration 019 (P24, P26): nights an earlier version kept of a source not asked at its site
 * owner's request, as `refused` (the site not read) or `disallowed` (a path left alone), or as
 * a recheck's `recheck-still-no` with the owner's words after its outcome's, are
 * `left-alone` once this version opens the store, on SQLite and PostgreSQL; a no of the site's
 * own and robots.txt's own Disallow stay what they were, and the history the flag rules read
 * then neither counts the owner's nights as nos nor lets them hide a later robots.txt change.
 */
const factories = storeFactories();

const OWNER_SITE = "the site's owner asked not to be read (2026-11-01: by e-mail)";
const OWNER_PATH = "the site's owner asked for /a to be left alone (2026-11-01: by e-mail)";

describe.each(factories)("a store left at migration 018 ($name)", (f) => {
  it("P24, P26: the owner's nights become left-alone, nothing else changes, and the flag rules read them so", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "018-record-instant", async (db) => {
      const ns = (night: string, source: string, outcome: string, reason: string | null) =>
        sql`insert into night_sources (night, source_id, outcome, reason, started_at, ended_at,
          records_found, new_records, duration_ms) values (${night}, ${source}, ${outcome},
          ${reason}, '2026-11-01T06:00:00.000Z', '2026-11-01T06:00:01.000Z', 0, 0, 1)`.execute(db);
      await ns("2026-11-01", "s", "ok", null);
      await ns("2026-11-02", "s", "refused", OWNER_SITE);
      await ns("2026-11-03", "s", "disallowed", OWNER_PATH);
      await ns("2026-11-02", "t", "refused", "http block: status 403");
      await ns("2026-11-03", "t", "disallowed", "robots.txt disallows it");
      // Rechecks (P25) its owner kept from being asked, as the last two builds kept them.
      await ns("2026-11-02", "u", "recheck-still-no", `refused: ${OWNER_SITE}`);
      await ns("2026-11-03", "u", "recheck-still-no", `disallowed: ${OWNER_SITE}`);
      await ns("2026-11-04", "u", "recheck-still-no", "refused: http block: status 403");
    });
    const s = await openStore(loc);
    try {
      const raw = rawStore(loc);
      try {
        const rows = await sql<{
          night: string;
          source_id: string;
          outcome: string;
          reason: string | null;
        }>`
          select night, source_id, outcome, reason from night_sources order by source_id, night`.execute(
          raw,
        );
        expect(rows.rows).toEqual([
          { night: "2026-11-01", source_id: "s", outcome: "ok", reason: null },
          { night: "2026-11-02", source_id: "s", outcome: "left-alone", reason: OWNER_SITE },
          { night: "2026-11-03", source_id: "s", outcome: "left-alone", reason: OWNER_PATH },
          {
            night: "2026-11-02",
            source_id: "t",
            outcome: "refused",
            reason: "http block: status 403",
          },
          {
            night: "2026-11-03",
            source_id: "t",
            outcome: "disallowed",
            reason: "robots.txt disallows it",
          },
          { night: "2026-11-02", source_id: "u", outcome: "left-alone", reason: OWNER_SITE },
          { night: "2026-11-03", source_id: "u", outcome: "left-alone", reason: OWNER_SITE },
          {
            night: "2026-11-04",
            source_id: "u",
            outcome: "recheck-still-no",
            reason: "refused: http block: status 403",
          },
        ]);
      } finally {
        await raw.destroy();
      }
      // Tonight robots.txt disallows the page that was read before the owner's nights: said.
      const history = await new SqlNightStore(s.db).histories("2026-11-04", ["s"]);
      const h = history.get("s");
      expect(h?.recentOutcomes).toEqual(["left-alone", "left-alone", "ok"]);
      const flags = flagsFor(
        {
          sourceId: "s",
          outcome: { kind: "disallowed", reason: "robots.txt disallows it" },
          records: [],
          validators: [],
          flags: [],
          startedAt: 0,
          endedAt: 0,
        },
        h as NonNullable<typeof h>,
      );
      expect(flags.map((x) => x.kind)).toEqual(["robots-disallows"]);
    } finally {
      await s.close();
    }
  });
});
