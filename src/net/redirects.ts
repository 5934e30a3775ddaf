import { MAX_URL_LENGTH } from "../policy/constants.js";
import { requestCredentialProblem } from "../policy/credentials.js";
import { normalForm, normalisePercent } from "../policy/url-form.js";
import type { Method } from "./types.js";

/**
 * P3: only plain public http(s) URLs are requested. A URL with user-info (`user:pw@host`), or
 * with a credential parameter in its query (`?access_token=…`, `?api_key=…`, `?password=…`:
 * policy/credentials.ts, the catalog's rule), is refused outright, never sent with the
 * credentials stripped, whoever built it: the catalog, a redirect's Location, a list's next
 * link, a form, a robots.txt redirect.
 *
 * P18, P27: the URL that passes is the one normal form of the request, used byte for byte by
 * robots.txt, on the wire and in the log (see normaliseUrl).
 */
export function checkUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `not a URL: ${JSON.stringify(raw)}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `not an http(s) URL: ${raw}` };
  }
  const credential = requestCredentialProblem(url);
  if (credential !== undefined) return { ok: false, reason: credential };
  const normal = normalForm(url);
  // When in doubt, do not send: a form the URL parser would not keep as it is is refused.
  let again: URL | undefined;
  try {
    again = new URL(normal);
  } catch {
    again = undefined;
  }
  if (again?.href !== normal) {
    return { ok: false, reason: `URL has no stable normal form (RFC 3986 §6.2.2): ${raw}` };
  }
  // Found on a page or in a Location as the catalog's are capped: the store keys what is
  // fetched by its URL, and servers refuse longer ones (constants.ts MAX_URL_LENGTH).
  if (again.href.length > MAX_URL_LENGTH)
    return {
      ok: false,
      reason: `URL is ${again.href.length.toLocaleString("en-US")} characters long, more than the ${MAX_URL_LENGTH.toLocaleString("en-US")} the checker asks for: not asked (${again.href.slice(0, 80)}…)`,
    };
  return { ok: true, url: again };
}

/**
 * The one normal form of a request URL (P18, P27), what robots.txt judges, what the request
 * line carries and what the log records: WHATWG parsing (lower-case scheme and host, default
 * port dropped, dot segments removed), then no fragment, no empty query (`/records?` is
 * `/records`), and percent-encoding normalised as RFC 3986 §6.2.2.1 and §6.2.2.2 allow:
 * upper-case hex digits, and escapes of unreserved characters decoded (`%7e` is `~`). Other
 * escapes, reserved characters and a `%` that starts no escape are left as written.
 * Undefined for a URL that is not http(s) or carries credentials (see checkUrl).
 */
export function normaliseUrl(raw: string): string | undefined {
  const checked = checkUrl(raw);
  return checked.ok ? checked.url.href : undefined;
}

export { normalisePercent };

export interface Hop {
  url: string;
  method: Method;
  body?: string;
  contentType?: string;
}

/**
 * P3, P19: a Location resolved against the URL that sent it, checked like any URL we request
 * (a Location with user-info, or not http(s), is never sent, stripped or not). The one copy,
 * for page and robots.txt redirects alike.
 */
export function resolveLocation(
  location: string,
  base: string,
): { ok: true; url: URL } | { ok: false; reason: string } {
  let href: string;
  try {
    href = new URL(location, base).href;
  } catch {
    return { ok: false, reason: `redirect to a bad Location ${JSON.stringify(location)}` };
  }
  const checked = checkUrl(href);
  return checked.ok ? checked : { ok: false, reason: `redirect to ${checked.reason}` };
}

/**
 * RFC 9110 §15.4: 303 turns into GET (HEAD stays HEAD); 301/302 after POST turn into GET
 * (what every browser does); 307/308 repeat the method and body.
 */
export function nextHop(
  prev: Hop,
  status: number,
  location: string,
): { ok: true; hop: Hop } | { ok: false; reason: string } {
  const checked = resolveLocation(location, prev.url);
  if (!checked.ok) return checked;
  const toGet =
    (status === 303 && prev.method !== "HEAD") ||
    ((status === 301 || status === 302) && prev.method === "POST");
  if (toGet) return { ok: true, hop: { url: checked.url.href, method: "GET" } };
  const hop: Hop = { url: checked.url.href, method: prev.method };
  if (prev.body !== undefined) hop.body = prev.body;
  if (prev.contentType !== undefined) hop.contentType = prev.contentType;
  return { ok: true, hop };
}
