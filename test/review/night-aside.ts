/**
 * The setup the revahead "set aside" tests share: a store holding one finished night recorded
 * two days ahead of tonight (a clock run fast), before setAsideNightsAhead is called on it.
 */
import { addDays } from "../../src/policy/night-date.js";
import { openStore, type Store } from "../../src/store/db.js";
import type { StoreFactory } from "../store/stores.js";

export const TONIGHT = "2026-11-05";
export const AHEAD = addDays(TONIGHT, 2);
/** When the night ahead started, ended and read what it read, by the clock run fast. */
export const AT = "2026-11-07T23:00:00.000Z";

/** Opens a migrated store from `f`, records the night AHEAD (finished at AT), runs `body`, closes. */
export async function withNightAhead(
  f: StoreFactory,
  body: (db: Store["db"]) => Promise<void>,
): Promise<void> {
  const s = await openStore(await f.migrated());
  try {
    const db = s.db;
    await db
      .insertInto("nights")
      .values({
        night: AHEAD,
        started_at: AT,
        deadline_at: AT,
        finished_at: AT,
        runs: 1,
        user_agent: null,
        catalog_note: null,
      })
      .execute();
    await body(db);
  } finally {
    await s.close();
  }
}

/** Now, by the clock set right: tonight, before the night ahead's stamps. */
export const NOW = Date.parse(`${TONIGHT}T22:00:00.000Z`);

/** One government and its one source (`g1/agendas`), stamped `at`: what records hang on. */
export async function oneSource(db: Store["db"], at = AT): Promise<void> {
  await db
    .insertInto("governments")
    .values({
      id: "g1",
      name: "Village of Ahead",
      kind: "village",
      county: "Franklin",
      website: null,
      entry: "{}",
      catalog_file: "c.yaml",
      first_seen_at: at,
      updated_at: at,
      retired_at: null,
    })
    .execute();
  await db
    .insertInto("sources")
    .values({
      id: "g1/agendas",
      government_id: "g1",
      records: "agendas",
      url: "https://a.gov/agendas",
      access: "page",
      platform: null,
      name: null,
      confirmed: 0,
      entry: "{}",
      catalog_file: "c.yaml",
      first_seen_at: at,
      updated_at: at,
      retired_at: null,
      renamed_to: null,
    })
    .execute();
}
