import { MAX_REDIRECTS } from "../constants.js";
import { parseRobotsCached } from "./body-cache.js";
import { isAllowed, policyFor } from "./policy.js";

/**
 * What the fetch of one origin's robots.txt came to, and what that means for a URL there.
 * Pure: the net layer fetches and stores; this decides.
 */

/**
 * P16, RFC 9309 §2.3: the file for `url` lives at the same scheme, host and port. WHATWG
 * URL lower-cases the host, turns IDN into punycode, elides the scheme's default port
 * (`https://h:443/` → `https://h/robots.txt`) and keeps any other (`http://h:8080/x` →
 * `http://h:8080/robots.txt`). Userinfo is dropped. Throws TypeError for a URL that is not
 * http(s): that is a bug in the caller, not a night's outcome.
 */
export function robotsUrlFor(url: string): string {
  const u = parseHttpUrl(url);
  if (u === undefined) throw new TypeError(`not an http(s) URL, so no robots.txt: ${url}`);
  return `${u.protocol}//${u.host}/robots.txt`;
}

export type RobotsFetchResult =
  | { state: "rules"; body: string }
  | { state: "allow-all" }
  | { state: "unreachable"; reason: string };

/**
 * P20 and RFC 9309 §2.3.1: a complete 2xx gives rules; a 4xx allows all (§2.3.1.3), except
 * 429, which we read as "unreachable" because allowing everything after "too many
 * requests" would be impolite (P20 names the exception). 5xx, a network error (status
 * null), a body cut off mid-transfer and a sixth redirect are all unreachable (§2.3.1.4:
 * "MUST assume complete disallow"); so is a 3xx handed to us, since it means the caller did
 * not follow it. An incomplete body counts as unreachable whatever the status, and so does a
 * 206 (Partial Content): the checker never sends Range, so a 206 is a cache or proxy handing
 * out a stored fragment, by its own word only part of the file. Read as the whole file it
 * would drop the rest's rules (P18): it is a file cut off mid-transfer.
 */
export function classifyRobotsAnswer(a: {
  status: number | null;
  complete: boolean;
  redirectsFollowed?: number;
}): "rules" | "allow-all" | "unreachable" {
  if ((a.redirectsFollowed ?? 0) > MAX_REDIRECTS) return "unreachable";
  if (a.status === null || !a.complete) return "unreachable";
  const s = a.status;
  if (s === 206) return "unreachable";
  if (s >= 200 && s <= 299) return "rules";
  if (s === 429) return "unreachable";
  if (s >= 400 && s <= 499) return "allow-all";
  return "unreachable";
}

export type RobotsVerdict = {
  verdict: "allowed" | "disallowed" | "unknown";
  crawlDelaySeconds?: number;
  reason?: string;
};

/**
 * The verdict for one URL given its origin's robots.txt result. Only "allowed" lets a
 * request go (P18); "unknown" (nothing fetched, or unreachable) keeps the checker off
 * (P20), so politeness never fails open. Crawl-delay comes from the chosen group.
 */
export function robotsVerdict(
  result: RobotsFetchResult | undefined,
  url: string,
  agent: string,
): RobotsVerdict {
  if (result === undefined) return { verdict: "unknown", reason: "robots.txt not read yet" };
  if (result.state === "unreachable") {
    return { verdict: "unknown", reason: `robots.txt unreachable: ${result.reason}` };
  }
  const u = parseHttpUrl(url);
  if (u === undefined) return { verdict: "unknown", reason: `not an http(s) URL: ${url}` };
  if (result.state === "allow-all") return { verdict: "allowed" };
  const policy = policyFor(parseRobotsCached(result.body), agent);
  const verdict = isAllowed(policy, pathAndQueryOf(u)) ? "allowed" : "disallowed";
  return policy.crawlDelaySeconds === undefined
    ? { verdict }
    : { verdict, crawlDelaySeconds: policy.crawlDelaySeconds };
}

/**
 * Path and query exactly as the request line carries them (RFC 9309 §2.2.2 matches on
 * them, without the fragment). Read from href rather than pathname + search so an empty
 * query (`/a?`) keeps its `?`, as it does on the wire.
 */
export function pathAndQueryOf(u: URL): string {
  const href = u.href;
  const hash = href.indexOf("#");
  const end = hash >= 0 ? hash : href.length;
  const start = href.indexOf("/", u.protocol.length + 2);
  return start < 0 || start >= end ? "/" : href.slice(start, end);
}

function parseHttpUrl(url: string): URL | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  return u.protocol === "http:" || u.protocol === "https:" ? u : undefined;
}
