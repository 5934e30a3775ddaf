import { normalise } from "./percent.js";

/**
 * RFC 9309 §2.2.2–2.2.3 matching. Patterns come from a stranger's file and paths from a
 * stranger's links, so matching must stay polynomial on any input (§3): this is
 * O(path × pattern) in the worst case and a single `startsWith` in the common one.
 */

/**
 * The request target as rules see it: path plus query, no fragment, `/` when empty, in the
 * normal form of percent.ts. Pass `url.pathname + url.search` (or see pathAndQueryOf).
 */
export function normalisePath(pathAndQuery: string): string {
  const hash = pathAndQuery.indexOf("#");
  let p = hash >= 0 ? pathAndQuery.slice(0, hash) : pathAndQuery;
  if (p.length === 0) p = "/";
  else if (p.charCodeAt(0) !== 0x2f) p = `/${p}`;
  return normalise(p, "path");
}

/** A rule's pattern in the same normal form; `*` and a final `$` keep their meaning. */
export function normalisePattern(p: string): string {
  return normalise(p, "pattern");
}

/**
 * Does `pattern` match `path`, anchored at the path's first octet? `*` matches any run of
 * characters (including `/`), a final `$` anchors the end, any other `$` is literal.
 *
 * With only `*` as a wildcard, placing each literal segment at its leftmost possible spot
 * is optimal (it leaves the longest tail for what follows), so a greedy left-to-right scan
 * with indexOf is exact. Each segment's search costs at most O(n·|segment|), so the whole
 * match is O(n·m) — no backtracking, unlike a regular expression built from the pattern.
 */
export function patternMatches(pattern: string, path: string): boolean {
  return compilePattern(pattern)(path);
}

/** A pattern turned into a test once, so a policy asked per request does no re-parsing. */
export function compilePattern(pattern: string): (path: string) => boolean {
  const anchored = pattern.length > 0 && pattern.charCodeAt(pattern.length - 1) === 0x24;
  const body = anchored ? pattern.slice(0, -1) : pattern;
  if (body.indexOf("*") < 0) {
    return anchored ? (path) => path === body : (path) => path.startsWith(body);
  }
  const segments = body.split("*");
  const first = segments[0] ?? "";
  const tail = segments[segments.length - 1] ?? "";
  const middle = segments.slice(1, -1).filter((seg) => seg.length > 0);
  return (path) => {
    if (!path.startsWith(first)) return false;
    let pos = first.length;
    for (const seg of middle) {
      const at = path.indexOf(seg, pos);
      if (at < 0) return false;
      pos = at + seg.length;
    }
    if (anchored) return path.length - tail.length >= pos && path.endsWith(tail);
    return tail.length === 0 || path.indexOf(tail, pos) >= 0;
  };
}
