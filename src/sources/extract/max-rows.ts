/**
 * P13, P14: the most rows or items one read keeps: an XLSX sheet's or a CSV file's rows, a
 * feed's items, the items a page recipe matches (each says so in its note when it stops there).
 * A module of its own, so a feed's reader does not load the XLSX reader (and cheerio) for it.
 */
export const MAX_ROWS = 100_000;

/** The note of a read that stopped at MAX_ROWS: "only the first 100000 `what` were read". */
export function firstRead(what: string): string {
  return `only the first ${MAX_ROWS} ${what} were read`;
}
