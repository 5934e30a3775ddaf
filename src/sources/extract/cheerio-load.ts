/**
 * cheerio's `load`, taken from the one file of the package that makes it (load-parse.js). The
 * package's index gives the same function but first loads what cheerio fetches pages with:
 * undici's whole index (fetch, WebSocket, its caches), an encoding sniffer, a parser stream.
 * The engine fetches with its own transport, yet a night with page or form sources paid for all
 * that at its start: cheerio imported took 154–171 ms of CPU, load-parse.js required 49–76 ms
 * (docs/benchmarks.md, "CommonJS packages required").
 * The file is found beside the index cheerio's `require` entry resolves to, and required
 * (cjs.ts says why); a cheerio without it is loaded whole, as before.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type * as Cheerio from "cheerio";
import { requireCjs } from "../../cjs.js";

function loadParse(): typeof Cheerio.load {
  const file = join(dirname(requireCjs.resolve("cheerio")), "load-parse.js");
  const part = existsSync(file) ? (requireCjs(file) as Partial<typeof Cheerio>) : undefined;
  return typeof part?.load === "function"
    ? part.load
    : (requireCjs("cheerio") as typeof Cheerio).load;
}

export const load: typeof Cheerio.load = loadParse();
