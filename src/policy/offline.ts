/**
 * P20, P23: telling "our side cannot reach the internet" from "this site did not answer".
 * A robots.txt that cannot be read is that night's no for its origin (P20) only when the
 * failure is the site's; when most sites fail to resolve or to connect at once, the failure
 * is the checker's own, and nothing is judged about those sites that night. Pure: the night
 * feeds it what each site's latest outcome said about the connection.
 */

/** A transport failure that says nothing about the site when most sites show it. */
export type NetworkFailure = "dns" | "connect";

/** Sites that must have said something about the connection before "offline" is decided. */
export const OFFLINE_MIN_SITES = 5;
/** The share of those sites that failed to resolve or connect that means "offline". */
export const OFFLINE_SHARE = 0.8;
/** Only the sites most recently heard from count, so an outage during the night is seen. */
export const OFFLINE_WINDOW = 10;

// Node's resolver codes (getaddrinfo, RFC 3493 §6.1 EAI_*) and connect(2) errors: the
// fetcher keeps the code in the outcome's reason (src/net/transport-errors.ts).
const DNS_CODES = /\b(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|EAI_NODATA)\b/;
const CONNECT_CODES = /\b(ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ENETDOWN|EHOSTDOWN)\b/;
// The fetcher's own failure tags, written "dns: …" / "refused: …" at the start of a reason
// or after an origin or outcome prefix ("https://x.gov: dns: …", "unreachable: dns: …").
const DNS_TAG = /(^|: )dns: /;
const CONNECT_TAG = /(^|: )refused: /;

/** Which network failure an outcome's reason names, if any. */
export function networkFailureIn(reason: string | undefined): NetworkFailure | undefined {
  if (reason === undefined) return undefined;
  if (DNS_CODES.test(reason) || DNS_TAG.test(reason)) return "dns";
  if (CONNECT_CODES.test(reason) || CONNECT_TAG.test(reason)) return "connect";
  return undefined;
}

/**
 * What one source's outcome says about our connection: `failed` (its name did not resolve or
 * the connection was refused or had no route), `answered` (something came back from the
 * site tonight), or `none` (no evidence: the night ran out of time, the outcome is already
 * the checker's, or a time-out, which an outage and a slow site both give). Only outcomes of
 * a source's own check are fed here, never one the night wrote without asking.
 */
export function reachEvidence(o: {
  kind: string;
  reason?: string | undefined;
  status?: number | null | undefined;
}): "failed" | "answered" | "none" {
  // Nothing asked (not reached; left alone at its site owner's request, P26), or nothing to
  // tell an outage from a slow site by.
  if (
    o.kind === "unreached" ||
    o.kind === "left-alone" ||
    o.kind === "checker-offline" ||
    o.kind === "timed-out"
  )
    return "none";
  // Cut short by the deadline: answered when the site gave a status; else nothing to go by
  // (its reason names the transport's failure only by its kind, never as a network error).
  if (o.kind === "cut-short") return typeof o.status === "number" ? "answered" : "none";
  // A recheck's reason is the failed outcome's kind, then its reason (night/recheck.ts): a
  // refusal's starts "refused: " (a bot wall's 403 answered), a connection refused's
  // "unreachable: refused: …". Only the latter, with no status, says nothing came back.
  if (o.kind === "recheck-still-no") {
    if (typeof o.status === "number") return "answered";
    const failed = /^(unreachable|robots-unavailable): /.exec(o.reason ?? "");
    return failed && networkFailureIn((o.reason ?? "").slice(failed[0].length))
      ? "failed"
      : "answered";
  }
  const failure =
    o.kind === "unreachable" || o.kind === "robots-unavailable"
      ? networkFailureIn(o.reason)
      : undefined;
  return failure !== undefined ? "failed" : "answered";
}

export interface OfflineVerdict {
  offline: boolean;
  /** Sites in the window whose latest outcome was a DNS or connect failure. */
  failed: number;
  /** Sites in the window. */
  of: number;
}

/**
 * Decides from the sites most recently heard from (newest last; one entry per site, its
 * latest evidence) whether the checker is offline: at least OFFLINE_MIN_SITES sites, of which
 * at least OFFLINE_SHARE failed to resolve or connect. One site whose name does not resolve
 * is that site's problem; four of the last five is ours.
 */
export function judgeReach(latestPerSite: readonly boolean[]): OfflineVerdict {
  const window = latestPerSite.slice(-OFFLINE_WINDOW);
  const failed = window.filter((f) => f).length;
  const of = window.length;
  return { offline: of >= OFFLINE_MIN_SITES && failed >= OFFLINE_SHARE * of, failed, of };
}

/**
 * The canary (`nor night --canary <url>`): a page that always answers. It failing means our
 * side is cut off: no answer came back at all (unreachable, a time-out, or its robots.txt not
 * reachable for a DNS, connect or time-out failure). Any HTTP answer, even a no, means the
 * internet is there.
 */
export function canaryFailed(o: { kind: string; reason?: string | undefined }): boolean {
  if (o.kind === "unreachable" || o.kind === "timed-out") return true;
  if (o.kind !== "robots-unavailable") return false;
  return (
    networkFailureIn(o.reason) !== undefined ||
    /(^|: )timeout-(headers|body): /.test(o.reason ?? "")
  );
}
