/**
 * When a source's list is read for the first time, what it lists was there before: those
 * records are the source's, never new on record (store/night-records.ts marks them already
 * listed). Pure: what counts as having read a list before.
 */

/**
 * Outcomes that read the source's list and found records on it; so did any night that found
 * records (one whose backfill's older page said no has that no as its outcome, P7, though page 1
 * was read). A list that showed none is one read only by the same reader (EMPTY_READ_OUTCOME):
 * a recipe that reads nothing yet, or a way in that answered something else (P4), is none.
 */
export const READ_OUTCOMES = ["ok", "unchanged"] as const;

/**
 * The outcome of a night that read the source's list and found no records on it: the page
 * opened, was read as its kind, and showed none (a bids page's "There are no open bid postings
 * at this time."). Such a night counts as having read the list for a later night that reads it
 * with the same reader (the same recipe, preset and readers' code): what that night finds was
 * not there before. A list that showed none to another reader (a recipe that read nothing, then
 * mended) is read as for the first time.
 */
export const EMPTY_READ_OUTCOME = "no-records";

/**
 * A list last read more nights ago than this is read as for the first time: what it lists now
 * may have appeared any time since (a source marked not read for months, put back in the
 * catalog, or down for weeks), not since yesterday.
 */
export const READ_HORIZON_NIGHTS = 30;

/**
 * The address a night read a source's list at: its way in's (P4), else its outcome's. Another
 * way in, or a page moved in the catalog, is another list, whose records are read for the first
 * time.
 */
export function listAddress(r: {
  way?: { used?: { url?: string } } | undefined;
  outcome: { url?: string | undefined };
}): string | undefined {
  return r.way?.used?.url ?? r.outcome.url;
}
