import { type ParsedRobots, parseRobots } from "./parse.js";

/**
 * A small LRU of parsed robots.txt bodies keyed by the body text. The fetcher asks for a
 * verdict per URL, and most URLs of a night share a handful of bodies, so each body is
 * parsed once rather than once per request. Bounded by entry count and by total characters
 * so a few 500 KiB files cannot pin much memory.
 */
const MAX_ENTRIES = 256;
const MAX_TOTAL_CHARS = 8 * 1024 * 1024;

const entries = new Map<string, ParsedRobots>();
let totalChars = 0;

export function parseRobotsCached(body: string): ParsedRobots {
  const hit = entries.get(body);
  if (hit !== undefined) {
    // Map keeps insertion order: re-inserting marks the entry as most recently used.
    entries.delete(body);
    entries.set(body, hit);
    return hit;
  }
  const parsed = parseRobots(body);
  if (body.length > MAX_TOTAL_CHARS) return parsed;
  entries.set(body, parsed);
  totalChars += body.length;
  while (entries.size > MAX_ENTRIES || totalChars > MAX_TOTAL_CHARS) {
    const oldest = entries.keys().next();
    if (oldest.done) break;
    entries.delete(oldest.value);
    totalChars -= oldest.value.length;
  }
  return parsed;
}

/** For tests: how many bodies are held. */
export function parsedBodiesCached(): number {
  return entries.size;
}
