/**
 * Maps the fetcher's outcome (src/net/types.ts) to the night's stored outcome. Only the
 * kinds that end a way's attempt are mapped here; `ok` and `not-modified` are read by the
 * source check itself.
 */
import type { FetchOutcome } from "../net/types.js";
import { blockedAddressWhy } from "../policy/address.js";
import { isOwnersRequest } from "../policy/admission.js";
import type { LastAttempt } from "./ports.js";
import { type NightOutcome, NOT_SENT_FOR, SITE_CLOSED_REASON, TIME_LIMIT_PASSED } from "./types.js";

export { closedUnasked, cutByTheDeadline, isSiteClosedReason, TIME_LIMIT_PASSED } from "./types.js";

export { SITE_CLOSED_REASON };

/**
 * A source not asked because its site said no earlier tonight, with what the site said
 * (`HTTP 403`, `HTTP 429 (retry-after-too-long)`, a vendor's page): the source that got the no
 * itself, run again after a crash, is told by it too (P21, P23).
 */
export function siteClosedReason(said: string | undefined): string {
  return said ? `${SITE_CLOSED_REASON}: ${said}` : SITE_CLOSED_REASON;
}

export function failureOutcome(
  o: Exclude<FetchOutcome, { kind: "ok" } | { kind: "not-modified" }>,
): NightOutcome {
  switch (o.kind) {
    case "refused":
      return {
        kind: "refused",
        reason: o.reason,
        evidence: o.evidence,
        status: o.status,
        url: o.url,
      };
    case "site-closed":
      // Its owner's request (P26: the operator's decision, never the site's no), the reason
      // says so; else the site's own no earlier tonight (P21).
      return isOwnersRequest(o.reason)
        ? { kind: "left-alone", reason: o.reason, url: o.url }
        : { kind: "refused", reason: siteClosedReason(o.reason), url: o.url };
    case "site-down":
      // Its site was down earlier tonight (a 5xx after its retries): not asked, not a no
      // (P21); it goes first next night as any source not reached does (P13).
      return { kind: "unreached", reason: o.reason, url: o.url };
    case "robots-unavailable":
      return { kind: "robots-unavailable", reason: `${o.origin}: ${o.reason}`, url: o.url };
    case "disallowed":
      // A path its owner asked to be left alone (P26) is not robots.txt's doing (P18).
      return isOwnersRequest(o.reason)
        ? { kind: "left-alone", reason: o.reason ?? "", url: o.url }
        : { kind: "disallowed", reason: o.reason ?? "robots.txt disallows it", url: o.url };
    case "gone":
      return { kind: "gone", status: o.status, url: o.url };
    case "error":
      return {
        kind: "error",
        reason: o.reason,
        status: o.status,
        url: o.url,
        ...(o.held ? { held: true as const } : {}),
        ...(o.noAnswer ? { unanswered: true as const } : {}),
        ...(o.notSent ? { notSent: true as const } : {}),
      };
    case "unreachable":
      return { kind: "unreachable", reason: o.reason, url: o.url, unanswered: true };
    case "blocked-address":
      return { kind: "unreachable", reason: blockedAddressWhy(o.address), url: o.url };
    case "timed-out":
      return {
        kind: "timed-out",
        unanswered: true,
        // P14: the headers within 30 s of the attempt's start; the whole body within 30 s of
        // the headers (a body that began to arrive, then stalled or trickled, is this too).
        reason:
          o.phase === "headers"
            ? "no headers within 30 s"
            : "the page did not finish arriving within 30 s of its headers",
        url: o.url,
      };
    case "too-large":
      return {
        kind: "too-large",
        status: o.status,
        reason: `stopped at ${o.bytesRead} bytes`,
        url: o.url,
      };
    case "deadline":
      return { kind: "unreached", reason: o.reason ?? TIME_LIMIT_PASSED, url: o.url };
  }
}

/**
 * P13, P15: a source whose page was asked tonight (`last`, its latest attempt) when the deadline
 * stopped the request that had to follow: reached, and cut short. Its words say what the site
 * answered and what would have come next, never that it was not reached.
 */
export function cutShortOutcome(last: LastAttempt): NightOutcome {
  const answered =
    last.status !== null
      ? `answered HTTP ${last.status}`
      : `got no full answer (${last.failure ?? last.outcome})`;
  const next =
    last.outcome === "retry" && last.retryAt !== undefined
      ? `its retry (in ${Math.round(Math.max(0, last.retryAt - last.endedAt) / 1000)} s)`
      : "its next request";
  // A complete answer whose source the night had not recorded when the time limit came: its
  // next request (a next page, a form's search) would have started after it, or a stop or a
  // crash came between and the night resumed past it. Which, the request log says (P27).
  const reason = last.final
    ? `its last request (${last.url}) ${answered} in full; the night's time limit came before the source was finished`
    : `${answered}; ${next} would have started after the night's time limit`;
  const out: NightOutcome = { kind: "cut-short", reason, url: last.url };
  if (last.status !== null) out.status = last.status;
  return out;
}

/**
 * P25, P13: the words of a recheck whose page (`asked`) answered with a redirect whose next
 * request (`next`) was not sent, and `why` (the time limit, its site down tonight, its site's
 * wait or its owner's pace past the night).
 */
export function recheckHopReason(asked: string, next: string, why: string): string {
  return `its page (${asked}) answered with a redirect; the request that had to follow (${next})${NOT_SENT_FOR}${why}`;
}

/**
 * P25, P15: the words of a recheck whose page (`asked`) answered `status` (null: no full
 * answer) and whose retry was not sent, and `why` (its site found down meanwhile).
 */
export function recheckRetryReason(asked: string, status: number | null, why: string): string {
  const answered = status !== null ? `answered HTTP ${status}` : "got no full answer";
  return `its page (${asked}) ${answered}; its retry${NOT_SENT_FOR}${why}`;
}

/**
 * P25, P15: a recheck cut short, its page (`asked`, at `url`) having answered `status`, its retry
 * not sent for `why` (recheckRetryReason's words): reached, owing nothing.
 */
export function recheckRetryOutcome(
  asked: string,
  url: string,
  status: number | null,
  why: string,
): NightOutcome {
  const outcome: NightOutcome = {
    kind: "cut-short",
    reason: recheckRetryReason(asked, status, why),
    url,
  };
  if (status !== null) outcome.status = status;
  return outcome;
}

/** Outcomes after which no other way in is tried tonight (the site said no, or time is up). */
export function endsTheSource(kind: NightOutcome["kind"]): boolean {
  return kind === "refused" || kind === "robots-unavailable" || kind === "unreached";
}
