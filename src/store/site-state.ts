import { type Clock, systemClock } from "../clock.js";
import type { SiteStatePort } from "../net/types.js";
import type { Db } from "./db.js";
import { fromIso, toIso } from "./iso-time.js";

/**
 * P10: when the last request to each site ended, kept in the store so the 2 s gap between
 * requests to one site holds across a restart of the process.
 */
export class SqlSiteState implements SiteStatePort {
  readonly #db: Db;
  readonly #clock: Clock;

  /** The clock only stamps `updated_at` (bookkeeping); the gap itself uses `at`. */
  constructor(db: Db, clock: Clock = systemClock) {
    this.#db = db;
    this.#clock = clock;
  }

  async lastEnd(site: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom("site_state")
      .select("last_end_at")
      .where("site", "=", site)
      .executeTakeFirst();
    return row ? fromIso(row.last_end_at, `site_state ${site}`) : undefined;
  }

  /**
   * Never moves the time backwards: two fetchers finishing out of order (or a clock that
   * stepped back) must not shorten the next wait. One upsert, so it is atomic on both dialects.
   */
  async setLastEnd(site: string, at: number): Promise<void> {
    const row = { site, last_end_at: toIso(at), updated_at: toIso(this.#clock.now()) };
    await this.#db
      .insertInto("site_state")
      .values(row)
      .onConflict((oc) =>
        oc
          .column("site")
          .doUpdateSet({
            last_end_at: (eb) => eb.ref("excluded.last_end_at"),
            updated_at: (eb) => eb.ref("excluded.updated_at"),
          })
          // ISO text of fixed width: text order is time order.
          .where("site_state.last_end_at", "<", (eb) => eb.ref("excluded.last_end_at")),
      )
      .execute();
  }
}
