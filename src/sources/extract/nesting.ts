/**
 * A page nested too deeply to parse in good time (P13, P14): cheerio-load.ts bounds every parse
 * and stops one that goes past NESTING_BUDGET with TooDeeplyNested. Here a reader's answer is
 * made of that error, without loading cheerio (dispatch.ts, which every night loads, recognizes
 * it for the presets): the source's outcome is no records with the note saying why, as for any
 * answer that is not what the way reads.
 */

import type { Extraction } from "../record.js";
import type { TooDeeplyNested } from "./cheerio-load.js";

/** Whether `err` is cheerio-load.ts's TooDeeplyNested (known by its name: no cheerio loaded). */
export function isTooDeeplyNested(err: unknown): err is TooDeeplyNested {
  return err instanceof Error && err.name === "TooDeeplyNested";
}

/**
 * A reader's answer for a page its parse refused (no records, the note saying why, and not this
 * way's kind of answer, so a later way is still tried: P4); any other error is thrown again.
 */
export function refusedForNesting(err: unknown): Extraction {
  if (isTooDeeplyNested(err)) return { records: [], note: err.message, notThisWay: true };
  throw err;
}
