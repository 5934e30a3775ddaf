/**
 * A path a site owner asked us to leave alone (`nor site --leave-alone`, the console's Sites
 * form), as robots.txt writes one: it starts with `/`, holds no spaces (they are %20 there), no
 * control character or mark that turns the text around (an escape sequence pasted from a log
 * would reach the operator's terminal raw in `nor site` and `nor status`, and a real request's
 * path never holds one: the URL parser writes it percent-encoded), and is no longer than the
 * longest URL the checker asks for. Pure: the caller words the refusal for its place.
 */
import { MAX_URL_LENGTH } from "./constants.js";

const CONTROL_OR_BIDI = /[\p{Cc}\p{Zl}\p{Zp}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Why `path` cannot be a path to leave alone (words that follow "a path to leave alone" or the
 * option's name and the path), or undefined when it can.
 */
export function leaveAlonePathProblem(path: string): string | undefined {
  if (!path.startsWith("/") || /\s/.test(path)) return "must start with / and hold no spaces";
  const bad = CONTROL_OR_BIDI.exec(path);
  if (bad !== null) {
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    return `must hold no control or formatting character (U+${code}): write it as robots.txt does, percent-encoded`;
  }
  const length = [...path].length;
  if (length > MAX_URL_LENGTH)
    return `must be at most ${MAX_URL_LENGTH.toLocaleString("en-US")} characters, the longest address the checker asks for (it has ${length.toLocaleString("en-US")})`;
  return undefined;
}

/** A typed path as a refusal quotes it: its first 80 characters when it is long. */
export function shortenedPath(path: string): string {
  const chars = [...path];
  return chars.length > 200 ? `${chars.slice(0, 80).join("")}…` : path;
}
