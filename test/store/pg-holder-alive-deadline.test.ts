import { afterAll, describe, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { HolderLiveness } from "../../src/store/holder-liveness.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A site held by another machine's holder frozen past its lease (its liveness lock held) made
 * the admission answer "wait 250 ms" whatever the night's deadline: the night's request (site
 * gate) polled it past the deadline, four transactions a second, for up to MAX_WAITS (about
 * seven hours), and the night did not end. Before 212bec7 such a wait ended with the lease.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const FROZEN = "machine-p:104:pppp";
const ME = "machine-q:205:qqqq";

function intent(url: string, deadline?: number): SendIntent {
  const u = new URL(url);
  return {
    night: "2026-11-05",
    key: `GET ${url}`,
    method: "GET",
    url,
    site: "a.gov",
    origin: u.origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
    ...(deadline !== undefined ? { deadline } : {}),
  };
}

describe.skipIf(!factory)(
  "a site held by a frozen holder at the night's deadline (PostgreSQL)",
  () => {
    it("P9, P13: a site whose holder lives past its lease is not waited on past the night's deadline: not tonight", async () => {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      if (loc.kind !== "postgres") throw new Error(loc.kind);
      const store = await openStore(loc);
      const alive = new HolderLiveness(loc.url);
      try {
        await alive.hold(FROZEN);
        const j = new SqlJournal(store.db);
        const a = await j.admit(intent("https://www.a.gov/slow"), FROZEN, T0);
        if (a.kind !== "go") throw new Error(a.kind);
        const past = T0 + REQUEST_LEASE_MS + 60_000;
        // Before the deadline (with room for the gap): it waits, as 212bec7 made it.
        expect(
          await j.admit(intent("https://www.a.gov/next", past + 60_000), ME, past),
        ).toMatchObject({ kind: "wait", why: "in flight" });
        // At or past the deadline: nothing more is waited for tonight.
        for (const deadline of [past, past - 1, past + 1_999]) {
          expect(await j.admit(intent("https://www.a.gov/next", deadline), ME, past)).toMatchObject(
            { kind: "not-tonight" },
          );
        }
      } finally {
        await alive.close();
        await store.close();
      }
    });
  },
);
