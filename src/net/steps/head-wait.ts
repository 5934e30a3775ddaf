import type { Clock } from "../../clock.js";
import { siteDownOf } from "../../policy/admission.js";
import { LATEST_HOLD_MS } from "../../policy/retry.js";
import { rateLimitNo, statusRetry } from "../classify.js";
import type { JournalPort, WaitAsked } from "../journal.js";
import type { Call, Step } from "../pipeline.js";
import { retryAfterHold } from "./journal.js";
import { flattenHeaders } from "./limits.js";

/**
 * P15, P20, P21 across a crash: what an answer's head already decides is written to the journal
 * as soon as the head arrives, before its body is read, so a slow body and the checker killed
 * while reading it lose nothing a site owner was promised. A 429 or 5xx: the row's status (the
 * site answered: the attempt counts as a try, policy/admission.ts) and when it may be asked
 * again: after the retry's wait (5 s, 20 s or its Retry-After, the site held meanwhile), or not
 * again tonight (its retries used up, a Retry-After over 60 s or unreadable; robots.txt, never
 * retried), and a 429 past its retries closes the site as classify would (P21), as a page's 401
 * or 403 does (a no whatever its body, P21). A Retry-After
 * on a redirect holds the site (RFC 9110 §10.2.3). The completion writes the same from the
 * answer's end; a crash's recovery counts the wait from when the connection was found closed.
 * Only sent attempts (a replay sent nothing); nothing is written for any other answer.
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
    const redirect = status >= 300 && status < 400 && status !== 304;
    const no = (status === 401 || status === 403) && call.robotsFor === undefined;
    if (status !== 429 && status < 500 && !redirect && !no) return reply;
    const w = waitOf(call, t.attempt, status, reply.result.headers, deps.clock.now());
    if (w !== undefined) await deps.journal.waitAsked(t.id, w);
    return reply;
  };

/** Not asked again tonight: a retry time no admission reaches (it says "not tonight"). */
export const NOT_AGAIN_TONIGHT = LATEST_HOLD_MS;

/** What the head decides, as classify and the journal step will judge the whole answer. */
function waitOf(
  call: Call,
  attempt: number,
  status: number,
  raw: Record<string, string | string[]>,
  now: number,
): WaitAsked | undefined {
  const { headers } = flattenHeaders(raw);
  const asked = retryAfterHold(status, headers, now);
  if (status < 400) {
    // A redirect: its Retry-After holds the site (the redirects step waits it before the hop).
    return asked === undefined ? undefined : { status, siteNotBefore: asked };
  }
  // P21: a page's 401 or 403 is a no whatever its body says (a vendor's page names it better,
  // and the completion writes that name): the site is closed for the night from its head on.
  if (status === 401 || status === 403)
    return { status, retryAt: NOT_AGAIN_TONIGHT, closeSite: `HTTP ${status}` };
  const held = asked !== undefined ? { siteNotBefore: asked } : {};
  // robots.txt is never retried: its 429 or 5xx keeps the origin off for the night (P20).
  if (call.robotsFor !== undefined) return { status, retryAt: NOT_AGAIN_TONIGHT, ...held };
  const d = statusRetry({ attempt, now }, status, headers);
  if (d.retry) {
    const retryAt = now + d.waitMs;
    return { status, retryAt, siteNotBefore: Math.max(retryAt, asked ?? retryAt) };
  }
  return {
    status,
    retryAt: NOT_AGAIN_TONIGHT,
    ...held,
    // P21: a 429 that outlasts its retries is a no (classify's words for it).
    ...(status === 429 ? { closeSite: rateLimitNo(d.reason) } : {}),
    // A 502, 503 or 504 (downStatus: not a 500) that outlasts its retries (or asks for more than 60 s): the site down tonight, not
    // a no (classify's words for it), written before the body is read.
    ...siteDownOf(status, d.reason, call.url),
  };
}
