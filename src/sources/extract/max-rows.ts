/**
 * P13, P14: the most rows or items one read keeps: an XLSX sheet's or a CSV file's rows, a
 * feed's items, the items a page recipe matches (each says so in its note when it stops there).
 * A module of its own, so a feed's reader does not load the XLSX reader (and cheerio) for it.
 */
export const MAX_ROWS = 100_000;
