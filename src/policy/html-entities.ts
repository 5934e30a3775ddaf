/**
 * HTML character references decoded as a browser decodes them (`&amp;`, `&#35;`, every named
 * one), by the `entities` package (the decoder cheerio's parser uses). Loaded the first time
 * text holding a reference is decoded, not when the night starts: a night of pages that all
 * come back unchanged decodes none (about 15 ms of CPU a process to load; docs/benchmarks.md
 * "Readers loaded when first read").
 */
import type * as Entities from "entities";
import { requireCjs } from "../cjs.js";

let decode: typeof Entities.decodeHTML | undefined;

export function decodeHTML(s: string): string {
  decode ??= (requireCjs("entities") as typeof Entities).decodeHTML;
  return decode(s);
}
