import { siteDownOf } from "../policy/admission.js";
import { type RefusalVerdict, refusalFor } from "../policy/refusal.js";
import { retryDecision } from "../policy/retry.js";
import { noteLine } from "../policy/shown-text.js";
import type { AttemptResult } from "./pipeline.js";
import type { FetchOutcome, RefusalEvidence } from "./types.js";

/** What the pipeline does after one attempt at one URL. */
export type Step =
  /**
   * `downSite`: a 502, 503 or 504 that ends the request tonight (its retries used up, a Retry-After over
   * 60 s): the site is down for the rest of the night (the reason; not a no).
   */
  | { kind: "final"; outcome: FetchOutcome; closeSite?: string; downSite?: string }
  | { kind: "retry"; waitMs: number }
  | { kind: "redirect"; location: string; status: number };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface ClassifyContext {
  url: string;
  attempt: number;
  now: number;
  /** True when every attempt before this one was closed before a full response. */
  allClosedSoFar: boolean;
  keepBody: boolean;
  chain: string[];
  /**
   * P12: the request sent validators (If-None-Match, If-Modified-Since). A 304 answers only
   * such a request (RFC 9110 §15.4.5); to one that asked for nothing conditional, it says
   * nothing of any copy of ours.
   */
  conditional?: boolean;
}

/** A no (P21): the outcome, and the reason that closes the site for the night. */
type RefusedStep = {
  kind: "final";
  outcome: Extract<FetchOutcome, { kind: "refused" }>;
  closeSite: string;
};

function refused(
  url: string,
  status: number | null,
  reason: string,
  evidence: RefusalEvidence,
): RefusedStep {
  return {
    kind: "final",
    outcome: { kind: "refused", url, status, reason, evidence },
    closeSite: reason,
  };
}

/** P21: a recognised challenge or block page (policy/refusal.ts), as the no it is. */
export function refusedBy(verdict: RefusalVerdict, url: string, status: number): RefusedStep {
  const { reference, ...rest } = verdict;
  return refused(url, status, `${verdict.provider} ${verdict.verdict}: ${verdict.marker}`, {
    ...rest,
    ...(reference !== undefined ? { reference } : {}),
  });
}

/**
 * A 206's words in a reason and a log row's failure (the checker never sends Range), with the
 * answer's own Content-Range where it gave one.
 */
export function partialContent(contentRange: string | undefined): string {
  const range = contentRange ? ` (Content-Range: ${contentRange})` : "";
  return `HTTP 206 Partial Content to a request that asked no Range${range}`;
}

/** P21: a plain 401 or 403, a no by its status alone. */
function statusNo(url: string, status: number): RefusedStep {
  return refused(url, status, `HTTP ${status}`, {
    provider: "http",
    verdict: "status",
    marker: `HTTP ${status}`,
  });
}

/** P21, P22: a failed TLS handshake or certificate check is a no; never retried without it. */
export function tlsRefused(url: string, message: string): RefusedStep {
  return refused(url, null, "TLS handshake or certificate check failed", {
    provider: "tls",
    verdict: "tls",
    // Node's words quote the certificate (its CN, with whatever controls the site put there,
    // or every name it lists, hundreds on a shared host's): one line of at most NOTE_MAX
    // characters, as the marker goes to the log, the console and the source's page.
    marker: noteLine(message),
  });
}

/** P15, P21: the connection closed (or the body was cut) before a full response. */
export function isClosedEarly(r: AttemptResult): boolean {
  if (r.kind === "failure") return r.failure === "closed" || r.failure === "reset";
  return (
    r.read.kind === "failed" && r.read.failure !== "timeout-body" && r.read.failure !== "other"
  );
}

/** P15: a connection closed before a full response is retried; closed on every attempt is a no (P21). */
function closed(ctx: ClassifyContext, status: number | null, message: string): Step {
  const d = retryDecision({ attempt: ctx.attempt, closedEarly: true, now: ctx.now });
  if (d.retry) return { kind: "retry", waitMs: d.waitMs };
  if (ctx.allClosedSoFar) {
    return refused(ctx.url, status, "connection closed on every attempt", {
      provider: "connection",
      verdict: "closed",
      marker: noteLine(message),
    });
  }
  return {
    kind: "final",
    outcome: { kind: "error", url: ctx.url, status, reason: message, noAnswer: true },
    // A 502/503/504's head, its body cut on the last try: the site down tonight as for any.
    ...(status !== null ? siteDownOf(status, "retries-exhausted", ctx.url) : {}),
  };
}

/**
 * P15: whether a 429 or 5xx is tried again, by its Retry-After and the attempts used (the
 * head-wait step asks the same of a head before its body is read).
 */
export function statusRetry(
  ctx: { attempt: number; now: number },
  status: number,
  headers: Record<string, string>,
) {
  const retryAfter = headers["retry-after"];
  const date = headers["date"];
  return retryDecision({
    attempt: ctx.attempt,
    status,
    now: ctx.now,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(date !== undefined ? { date } : {}),
  });
}

/** P15: a retry refused because the site's Retry-After asked for longer than a night waits. */
function siteHold(reason: string): boolean {
  return reason === "retry-after-too-long" || reason === "retry-after-unreadable";
}

/** P21: the words of a 429's no, which close its site for the night. */
export const rateLimitNo = (why: string): string => `HTTP 429 (${why})`;

/** P21: a 429 that outlasts its retries (used up, or a Retry-After over 60 s or unreadable) is a no. */
function tooManyRequests(ctx: ClassifyContext, headers: Record<string, string>): Step | undefined {
  const d = statusRetry(ctx, 429, headers);
  if (d.retry) return undefined;
  const retryAfter = headers["retry-after"];
  return refused(ctx.url, 429, rateLimitNo(d.reason), {
    provider: "http",
    verdict: "rate-limit",
    // The site's header said back as one line of at most NOTE_MAX characters: a head may run to
    // 256 KiB, and the marker goes to the log, the console and the source's page.
    marker: noteLine(`HTTP 429${retryAfter !== undefined ? `, Retry-After: ${retryAfter}` : ""}`),
  });
}

/**
 * Attempt → step, in P21/P15/P14 order: transport failures, cut bodies, limits, refusals
 * (whatever the status), redirects, then status classes. Nothing here touches the network.
 */
export function classifyAttempt(r: AttemptResult, ctx: ClassifyContext): Step {
  const url = ctx.url;
  const final = (outcome: FetchOutcome): Step => ({ kind: "final", outcome });
  if (r.kind === "failure") {
    switch (r.failure) {
      case "blocked-address":
        return final({ kind: "blocked-address", url, address: r.address ?? "" });
      case "tls":
        return tlsRefused(url, r.message);
      case "timeout-headers":
        return final({ kind: "timed-out", url, phase: "headers" });
      case "timeout-body":
        return final({ kind: "timed-out", url, phase: "body" });
      case "reset":
      case "closed":
        return closed(ctx, null, r.message);
      default:
        return final({ kind: "unreachable", url, reason: `${r.failure}: ${r.message}` });
    }
  }
  const { status, headers, read } = r;
  // P21: a 429 past its retries is a no whatever became of its body: its head said so (and the
  // head-wait step closed the site on it before the body was read).
  if (status === 429 && read.kind === "failed") {
    const no = tooManyRequests(ctx, headers);
    if (no !== undefined) return no;
  }
  // P21: so is a 401 or 403 whose body could not be read whole (cut, too large, undecodable):
  // the head-wait step closed the site on its head, too.
  if ((status === 401 || status === 403) && read.kind !== "complete") return statusNo(url, status);
  if (read.kind === "failed") {
    if (read.failure === "timeout-body" || read.failure === "timeout-headers") {
      return final({ kind: "timed-out", url, phase: "body" });
    }
    // P15, P21: a body that came malformed (transport-errors.ts mapBodyError) is no connection
    // closed early: a 5xx or 429 is tried again as its status says, anything else is not, and
    // it is never the site's no.
    if (read.failure === "other") {
      const why = `body malformed after ${read.bytes} bytes: ${read.message}`;
      if (status === 429 || status >= 500) {
        const d = statusRetry(ctx, status, headers);
        if (d.retry) return { kind: "retry", waitMs: d.waitMs };
        return {
          kind: "final",
          outcome: {
            kind: "error",
            url,
            status,
            reason: `HTTP ${status} (${d.reason}), ${why}`,
            noAnswer: true,
            ...(siteHold(d.reason) ? { held: true as const } : {}),
          },
          ...siteDownOf(status, d.reason, url),
        };
      }
      return final({ kind: "error", url, status, reason: why, noAnswer: true });
    }
    return closed(ctx, status, `body cut after ${read.bytes} bytes: ${read.message}`);
  }
  // Only a page's own body must decode: a redirect, a 304, a 404 or a 5xx means what its
  // status says whatever its body (a browser follows a redirect without reading it), so one
  // whose body cannot be undone is read as one without a body (P15, P19); a no its head says
  // (a 401, 403, a challenge told by its headers) is still a no (P21).
  const undecodable = read.kind === "bad-encoding";
  if (undecodable && status >= 200 && status < 300)
    return final({ kind: "error", url, status, reason: read.message });
  if (read.kind === "too-large")
    return final({ kind: "too-large", url, status, bytesRead: read.bytes });
  const body = read.kind === "complete" ? read.body : new Uint8Array(0);

  const verdict = refusalFor({ status, headers, body, url });
  if (verdict) return refusedBy(verdict, url, status);
  if (status === 401 || status === 403) return statusNo(url, status);
  if (REDIRECTS.has(status)) {
    const location = headers["location"];
    if (!location)
      return final({ kind: "error", url, status, reason: `HTTP ${status} without Location` });
    if (r.severalLocations)
      return final({
        kind: "error",
        url,
        status,
        reason: `HTTP ${status} with different Locations (${location}): which one is meant cannot be told, not followed`,
      });
    return { kind: "redirect", location, status };
  }
  const response = { status, headers, url, chain: [...ctx.chain, url] };
  if (status === 304) {
    if (ctx.conditional === false)
      return final({
        kind: "error",
        url,
        status,
        reason:
          "HTTP 304 Not Modified to a request that sent no validators: it says nothing of a copy, and no page was sent",
      });
    return final({ kind: "not-modified", ...response });
  }
  if (status === 206) {
    // The checker never sends Range: a 206 is a cache's or proxy's stored fragment, by its own
    // word only part of the page. Read as the whole, a list cut short would lose its later
    // records; it is a failed read, as a body cut off is.
    return final({
      kind: "error",
      url,
      status,
      reason: `${partialContent(headers["content-range"])}: only part of the answer, not read as the whole`,
    });
  }
  if (status >= 200 && status < 300) {
    return final({ kind: "ok", ...response, body: ctx.keepBody ? body : new Uint8Array(0) });
  }
  if (status === 404 || status === 410) return final({ kind: "gone", url, status });
  if (status === 429) {
    const no = tooManyRequests(ctx, headers);
    if (no !== undefined) return no;
  }
  if (status === 429 || status >= 500) {
    const d = statusRetry(ctx, status, headers);
    if (d.retry) return { kind: "retry", waitMs: d.waitMs };
    return {
      kind: "final",
      outcome: {
        kind: "error",
        url,
        status,
        reason: `HTTP ${status} (${d.reason})`,
        // P7: a 5xx, or a 429 that is the site's hold: the site's "later", nothing of the page.
        ...(status >= 500 || siteHold(d.reason) ? { noAnswer: true as const } : {}),
        ...(siteHold(d.reason) ? { held: true as const } : {}),
      },
      // The project's rule beside P15: a 502, 503 or 504 (policy/admission.ts downStatus; a
      // 500 is one page's broken script) that ends the request tonight (its retries used
      // up, or a Retry-After over 60 s) leaves the site down for the rest of the night.
      ...siteDownOf(status, d.reason, url),
    };
  }
  return final({ kind: "error", url, status, reason: `HTTP ${status}` });
}

/** The log's name for an attempt's outcome (P27). */
export function labelOf(step: Step): string {
  return step.kind === "final" ? step.outcome.kind : step.kind;
}
