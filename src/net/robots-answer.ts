import { MAX_REDIRECTS, ROBOTS_MAX_BYTES } from "../policy/constants.js";
import { detectChallenge } from "../policy/refusal.js";
import {
  classifyRobotsAnswer,
  decodeRobotsBody,
  ROBOTS_READ_BYTES,
} from "../policy/robots/index.js";
import { partialContent, refusedBy, tlsRefused } from "./classify.js";
import type { AttemptResult, RobotsEntry } from "./pipeline.js";
import type { FetchOutcome } from "./types.js";

/** Robots bodies are read past the limit (and a BOM) so the decoder knows it was cut there. */
export const ROBOTS_READ_LIMIT = ROBOTS_READ_BYTES;

/** What one robots.txt attempt means (P16, P20, P21), and the log's word for it (P27). */
export type RobotsJudgement = { label: string } & RobotsMeaning;

type RobotsMeaning =
  /** A no (TLS, a challenge page, P21) or the address guard: nothing is cached. */
  | { kind: "stop"; outcome: Extract<FetchOutcome, { kind: "refused" | "blocked-address" }> }
  /** RFC 9309 §2.3.1.2: followed, up to five times, even across hosts. */
  | { kind: "redirect"; status: number; location: string }
  /**
   * The answer for the origin; `notModified`: a 304 to the validators sent (the copy stands);
   * `failure`: why a complete answer is unreachable, for the log (P27: a 206's part of a file).
   */
  | { kind: "answer"; notModified: boolean; entry: RobotsEntry; failure?: string };

/**
 * One robots.txt attempt → what it means. `hops` is the redirects followed before it;
 * `conditional` whether this request carried our stored validators. Challenge detection runs
 * once per answer, and the body is decoded once.
 */
export function judgeRobots(
  r: AttemptResult,
  ctx: { url: string; hops: number; conditional: boolean },
): RobotsJudgement {
  if (r.kind === "failure") {
    if (r.failure === "tls") {
      return { kind: "stop", label: "refused", outcome: tlsRefused(ctx.url, r.message).outcome };
    }
    if (r.failure === "blocked-address") {
      const outcome = { kind: "blocked-address" as const, url: ctx.url, address: r.address ?? "" };
      return { kind: "stop", label: "blocked-address", outcome };
    }
    return { kind: "answer", label: "unreachable", notModified: false, entry: answer(r, ctx.hops) };
  }
  // P21: a challenge or block page is a no whatever it is served for; never "rules".
  const challenge =
    r.read.kind === "complete"
      ? detectChallenge({ status: r.status, headers: r.headers, body: r.read.body, url: ctx.url })
      : null;
  if (challenge) {
    return {
      kind: "stop",
      label: "refused",
      outcome: refusedBy(challenge, ctx.url, r.status).outcome,
    };
  }
  if (r.status === 304) {
    // Only a 304 to the request that carried our validators refreshes the copy (RFC 9110
    // §15.4.5); an unasked-for 304 on a later hop is no answer (RFC 9309 §2.4: ≤ 24 h).
    // The entry is what stands without the stored copy: unreachable (fails closed).
    const entry = ctx.conditional
      ? unreachable(r, "304 without a stored copy")
      : answer(r, ctx.hops);
    return { kind: "answer", label: "not-modified", notModified: ctx.conditional, entry };
  }
  const location = r.headers["location"];
  if (r.status >= 300 && r.status < 400 && location && r.severalLocations) {
    // P20: where robots.txt is cannot be told, so it cannot be read (never a 404's allow-all).
    const entry = unreachable(r, `HTTP ${r.status} with different Locations (${location})`);
    return { kind: "answer", label: "unreachable", notModified: false, entry };
  }
  if (r.status >= 300 && r.status < 400 && location) {
    if (ctx.hops < MAX_REDIRECTS) {
      return { kind: "redirect", label: "redirect", status: r.status, location };
    }
    // P20: a sixth hop counts as unreachable.
    const entry = unreachable(r, "more than 5 redirects");
    return { kind: "answer", label: "unreachable", notModified: false, entry };
  }
  const entry = answer(r, ctx.hops);
  // P20, P27: a part of the file (206, unasked) is unreachable as a cut body is; the log says why.
  if (r.status === 206 && entry.state === "unreachable" && entry.reason !== undefined) {
    return {
      kind: "answer",
      label: "unreachable",
      notModified: false,
      entry,
      failure: entry.reason,
    };
  }
  return { kind: "answer", label: entry.state, notModified: false, entry };
}

export function unreachable(r: AttemptResult | undefined, reason: string): RobotsEntry {
  return { state: "unreachable", status: r?.kind === "response" ? r.status : null, reason };
}

/** One final robots.txt answer → the entry to cache (P16, P20). */
export function answer(r: AttemptResult, redirects: number): RobotsEntry {
  if (r.kind === "failure") return unreachable(r, `${r.failure}: ${r.message}`);
  // Reaching the limit is fine (the parser drops the partial last line); a cut is not.
  const complete = r.read.kind === "complete" || r.read.kind === "too-large";
  const state = classifyRobotsAnswer({ status: r.status, complete, redirectsFollowed: redirects });
  if (state === "unreachable") {
    const why =
      r.status === 206
        ? `${partialContent(r.headers["content-range"])}: only part of robots.txt, read as cut off mid-transfer`
        : complete
          ? `HTTP ${r.status}`
          : `HTTP ${r.status}, body ${r.read.kind}`;
    return unreachable(r, why);
  }
  const base = {
    status: r.status,
    ...(r.headers["etag"] ? { etag: r.headers["etag"] } : {}),
    ...(r.headers["last-modified"] ? { lastModified: r.headers["last-modified"] } : {}),
  };
  if (state === "allow-all") return { state, ...base };
  const bytes =
    r.read.kind === "complete" || r.read.kind === "too-large" ? r.read.body : new Uint8Array();
  // P17: the one decode. The cache keeps this text and the parser reads it as it is.
  return { state, ...base, body: decodeRobotsBody(bytes, ROBOTS_MAX_BYTES).text };
}
