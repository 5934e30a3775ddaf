import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { setSiteRule, siteRules } from "../../src/store/site-rules.js";
import { postgresFactory } from "../store/stores.js";

/**
 * Two operators answering one e-mail at once, from two machines on one PostgreSQL store: the
 * same request set twice at the same moment is one request in force (the other `already`), and
 * two different gaps set at once leave one gap in force, never two (a site has at most one).
 */
const url = process.env.NOR_TEST_POSTGRES_URL;
const AT = Date.parse("2026-12-04T15:00:00Z");

describe.skipIf(!url)("site rules set at once on PostgreSQL", () => {
  const pg = postgresFactory(url ?? "");
  afterAll(() => pg.cleanup());

  it("P10, P24 (postgres): the same request set at once by two processes is in force once; two gaps set at once leave one", async () => {
    const loc = await pg.migrated();
    const a = await openStore(loc);
    const b = await openStore(loc);
    try {
      for (let round = 0; round < 5; round++) {
        const site = `r${round}.example.gov`;
        const same = { site, kind: "gap" as const, value: "30000", reason: "e-mail" };
        const got = await Promise.all([
          setSiteRule(a.db, { ...same, at: AT, by: "kim" }),
          setSiteRule(b.db, { ...same, at: AT + 1, by: "lee" }),
        ]);
        expect(got.map((g) => g.kind).sort()).toEqual(["already", "set"]);
        const two = await Promise.all([
          setSiteRule(a.db, { ...same, value: "60000", at: AT + 10, by: "kim" }),
          setSiteRule(b.db, { ...same, value: "90000", at: AT + 11, by: "lee" }),
        ]);
        expect(two.map((g) => g.kind)).toEqual(["set", "set"]);
        const inForce = await siteRules(a.db, site);
        expect(inForce.filter((r) => r.kind === "gap")).toHaveLength(1);
      }
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
