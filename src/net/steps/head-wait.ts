import type { Clock } from "../../clock.js";
import { LATEST_HOLD_MS, parseRetryAfter, retryDecision } from "../../policy/retry.js";
import type { JournalPort, WaitAsked } from "../journal.js";
import type { Call, Step } from "../pipeline.js";
import { flattenHeaders } from "./limits.js";

/**
 * P15, across a crash: an answer whose head asks for a wait (a 429 or 5xx: the retry's wait,
 * 5 s, 20 s or its Retry-After; a Retry-After on any of them) has that wait written to the
 * journal as soon as the head arrives, before its body is read. A slow body, and the checker
 * killed while reading it, no longer lose the wait: the next process finds the site held and
 * the attempt counted (policy/admission.ts). The completion writes the same again, from the
 * answer's end. Only sent attempts (a replay sent nothing), only when a wait is asked.
 */
export const headWait =
  (deps: { clock: Clock; journal: JournalPort }): Step =>
  (next) =>
  async (call) => {
    const reply = await next(call);
    const t = call.ticket;
    if (reply.kind !== "raw" || reply.result.kind !== "response" || t?.kind !== "send")
      return reply;
    const { status } = reply.result;
    if (status !== 429 && status < 500) return reply;
    const w = waitOf(call, t.attempt, status, reply.result.headers, deps.clock.now());
    if (w !== undefined) await deps.journal.waitAsked(t.id, w);
    return reply;
  };

/**
 * The wait the head asks for, as classify and the journal step will judge the whole answer:
 * a page's retry (policy/retry.ts; robots.txt is never retried, P20), and the site held for
 * its Retry-After (RFC 9110 §10.2.3), the later of the two.
 */
function waitOf(
  call: Call,
  attempt: number,
  status: number,
  raw: Record<string, string | string[]>,
  now: number,
): WaitAsked | undefined {
  const { headers } = flattenHeaders(raw);
  const retryAfter = headers["retry-after"];
  const date = headers["date"];
  let retryAt: number | undefined;
  if (call.robotsFor === undefined) {
    const d = retryDecision({
      attempt,
      status,
      now,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...(date !== undefined ? { date } : {}),
    });
    if (d.retry) retryAt = now + d.waitMs;
  }
  const ms = parseRetryAfter(retryAfter, now, date);
  const asked = ms === undefined ? undefined : Math.min(now + ms, LATEST_HOLD_MS);
  const hold = Math.max(asked ?? Number.NEGATIVE_INFINITY, retryAt ?? Number.NEGATIVE_INFINITY);
  if (!Number.isFinite(hold)) return undefined;
  return { status, ...(retryAt !== undefined ? { retryAt } : {}), siteNotBefore: hold };
}
