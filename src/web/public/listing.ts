/**
 * Whether a record page was in the directory's catalog on a night (P23): a night before it was
 * listed, or while it was retired, is neither its no nor the checker's outage for it. Made from
 * its catalog changes (src/store/read/source-state.ts `listingChanges`).
 */
import { nightOf } from "../../policy/night-date.js";
import type { ListingChange } from "../../store/read/source-state.js";

export type Listing = "listed" | "not-yet-listed" | "retired";

/**
 * On a night that ran, as the catalog stood when it began (a page added later that day waits
 * for the next night); on a date when no night ran, as it stood at the end of that date. A page
 * with no catalog changes at all (nothing says when it came) counts as listed.
 */
export function listingOnNight(
  changes: readonly ListingChange[],
  night: string,
  startedAt?: string,
): Listing {
  if (changes.length === 0) return "listed";
  const start = startedAt === undefined ? undefined : Date.parse(startedAt);
  let state: Listing = "not-yet-listed";
  for (const c of changes) {
    const t = Date.parse(c.at);
    const before = start !== undefined ? t <= start : nightOf(t) <= night;
    if (!before) break;
    state = c.change === "retired" ? "retired" : "listed";
  }
  return state;
}
