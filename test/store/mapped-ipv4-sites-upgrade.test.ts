import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { siteOf } from "../../src/policy/site.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { siteRules } from "../../src/store/site-rules.js";
import { leftAt, rawStore, storeFactories } from "./stores.js";

/**
 * Migration 024 (P9, P10, P21): an earlier build kept a site written as an IPv4-mapped IPv6
 * literal as that literal (`[::ffff:7f00:50]`); the checker now names it by its IPv4 address
 * (127.0.0.80), so an owner's request recorded under the literal no longer held: the request
 * would have gone out. Once this version opens the store, the owners' requests and the journal's
 * state of such a site are the IPv4 address's, on SQLite and PostgreSQL, and politeness holds
 * for both spellings of the address.
 */
const factories = storeFactories();

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
const ME = "test-host:1:me";
const iso = (ms: number) => new Date(ms).toISOString();

function intent(url: string): SendIntent {
  return {
    night: NIGHT,
    key: `GET ${url}`,
    method: "GET",
    url,
    site: siteOf(url),
    origin: new URL(url).origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
  };
}

describe.each(factories)("a store left at migration 023 ($name)", (f) => {
  it("P21, P10: owners' requests and site state kept under a [::ffff:…] literal hold for the IPv4 address, in either spelling; other sites are untouched", async () => {
    const loc = await f.fresh();
    await leftAt(loc, "023-new-by-night-index", async (db) => {
      const rule = (
        id: string,
        site: string,
        kind: string,
        value: string | null,
        cleared = false,
      ) =>
        sql`insert into site_rules (id, site, kind, value, reason, at, by, cleared_at, cleared_by)
          values (${id}, ${site}, ${kind}, ${value}, 'owner, e-mail', ${iso(T0 - 86_400_000)},
          'pat', ${cleared ? iso(T0 - 3_600_000) : null}, ${cleared ? "pat" : null})`.execute(db);
      // As `nor site '[::ffff:127.0.0.80]' --not-read` kept it, and a gap since cleared.
      await rule("r1", "[::ffff:7f00:50]", "not-read", null);
      await rule("r2", "[::ffff:7f00:50]", "gap", "30000", true);
      // A path left alone on 10.0.0.1, kept under its literal.
      await rule("r3", "[::ffff:a00:1]", "leave-alone", "/permits/");
      // Not mapped addresses: kept as they are.
      await rule("r4", "[2001:db8::1]", "not-read", null);
      await rule("r5", "example.gov", "gap", "10000");
      const state = (site: string, lastEnd: number, notBefore: number | null) =>
        sql`insert into site_state (site, last_end_at, updated_at, not_before)
          values (${site}, ${iso(lastEnd)}, ${iso(lastEnd)},
          ${notBefore === null ? null : iso(notBefore)})`.execute(db);
      // 10.0.0.1 asked a second ago under its literal, a minute ago under its own name, and a
      // Retry-After hold under its literal: joined on the stricter side.
      await state("[::ffff:a00:1]", T0 - 1000, T0 + 30_000);
      await state("10.0.0.1", T0 - 60_000, null);
      // 10.0.0.2 known only under its literal: moved.
      await state("[::ffff:a00:2]", T0 - 500, null);
    });
    const store = await openStore(loc);
    try {
      const rules = await siteRules(store.db);
      expect(rules.map((r) => [r.site, r.kind, r.value ?? null])).toEqual([
        ["10.0.0.1", "leave-alone", "/permits/"],
        ["127.0.0.80", "not-read", null],
        ["[2001:db8::1]", "not-read", null],
        ["example.gov", "gap", "10000"],
      ]);
      const raw = rawStore(loc);
      try {
        const cleared = await sql<{ site: string; cleared_by: string | null }>`
          select site, cleared_by from site_rules where id = 'r2'`.execute(raw);
        expect(cleared.rows).toEqual([{ site: "127.0.0.80", cleared_by: "pat" }]);
        const states = await sql<{ site: string; last_end_at: string; not_before: string | null }>`
          select site, last_end_at, not_before from site_state order by site`.execute(raw);
        expect(states.rows).toEqual([
          { site: "10.0.0.1", last_end_at: iso(T0 - 1000), not_before: iso(T0 + 30_000) },
          { site: "10.0.0.2", last_end_at: iso(T0 - 500), not_before: null },
        ]);
      } finally {
        await raw.destroy();
      }

      // The checker's own admission, for both spellings of each address.
      const journal = new SqlJournal(store.db);
      for (const url of [
        "http://127.0.0.80:8080/agendas",
        "http://[::ffff:127.0.0.80]:8080/agendas",
      ]) {
        const a = await journal.admit(intent(url), ME, T0);
        expect(a, url).toEqual({
          kind: "closed",
          reason: "the site's owner asked not to be read (2026-11-04: owner, e-mail)",
        });
      }
      for (const url of ["http://10.0.0.1/permits/1", "http://[::ffff:10.0.0.1]/permits/2"]) {
        const a = await journal.admit(intent(url), ME, T0);
        expect(a.kind, url).toBe("left-alone");
      }
      // Elsewhere on 10.0.0.1 the Retry-After hold kept under its literal holds.
      const held = await journal.admit(intent("http://[::ffff:a00:1]/other"), ME, T0);
      expect(held.kind).toBe("wait");
      if (held.kind === "wait") expect(held.until).toBeGreaterThanOrEqual(T0 + 30_000 - 1_000);
    } finally {
      await store.close();
    }
  });
});
