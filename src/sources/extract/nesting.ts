/**
 * A page nested too deeply, with too many attributes or too many formatting elements left open,
 * to parse in good time (P13, P14): cheerio-load.ts bounds every parse and stops one that goes
 * past NESTING_BUDGET, ATTRIBUTES_BUDGET or FORMATTING_BUDGET with a TooCostlyToParse. Here a
 * reader's answer is made of that error, without loading cheerio (dispatch.ts, which every night
 * loads, recognizes it for the presets): the source's outcome is no records with the note saying
 * why, as for any answer that is not what the way reads.
 */

import type { Extraction } from "../record.js";
import type { TooCostlyToParse } from "./cheerio-load.js";

/** The names of cheerio-load.ts's TooCostlyToParse errors. */
const REFUSED_PARSES: ReadonlySet<string> = new Set([
  "TooDeeplyNested",
  "TooManyAttributes",
  "TooManyFormattingElements",
]);

/**
 * Whether `err` is one of cheerio-load.ts's TooCostlyToParse (too deeply nested, too many
 * attributes or formatting elements), known by its name: no cheerio loaded.
 */
export function isTooCostlyToParse(err: unknown): err is TooCostlyToParse {
  return err instanceof Error && REFUSED_PARSES.has(err.name);
}

/**
 * A reader's answer for a page its parse refused (no records, the note saying why, and not this
 * way's kind of answer, so a later way is still tried: P4); any other error is thrown again.
 */
export function refusedForNesting(err: unknown): Extraction {
  if (isTooCostlyToParse(err)) return { records: [], note: err.message, notThisWay: true };
  throw err;
}
