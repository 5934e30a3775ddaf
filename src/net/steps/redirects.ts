import type { Clock } from "../../clock.js";
import { MAX_REDIRECTS, RETRY_AFTER_MAX_MS } from "../../policy/constants.js";
import { readRetryAfter } from "../../policy/retry.js";
import { type Call, final, type Got, type Reply, type Step } from "../pipeline.js";
import { nextHop } from "../redirects.js";

export interface RedirectsDeps {
  clock: Clock;
  /** P13: no request starts after it, a redirected one included. */
  deadline?: number;
}

/**
 * P19: follows a redirect that a step below answered with, at most five in a row. Each hop is
 * a new request through every step below (closed site, robots.txt of the hop's origin,
 * validators, headers, retries, the hop's site gate, …), so a hop to another origin reads
 * that origin's robots.txt first. `nextHop` checks the Location as the URL check does (P3)
 * and says which method and body the hop carries (RFC 9110 §15.4). A robots.txt request follows its redirects here too (RFC 9309 §2.3.1.2);
 * classify ends its sixth hop as unreachable (P20), and its hops stay "robots" in the log.
 *
 * P15, RFC 9110 §10.2.3: a Retry-After on a 3xx is the least time before the redirected
 * request. The journal holds the answering site until then; here the hop waits as long
 * wherever it goes (another site too), on the clock, from the redirect's end. As for a retry,
 * a wait over 60 s, or one that cannot be read, means the redirect is not followed tonight,
 * and a wait that would end after the night's deadline leaves the hop for the next night.
 */
export const redirects =
  (deps: RedirectsDeps): Step =>
  (next) =>
  async (first) => {
    let call = first;
    const chain: string[] = [];
    // P11: whether every hop so far was a permanent redirect (301, 308).
    let permanent = true;
    for (let hops = 0; hops <= MAX_REDIRECTS; hops++) {
      const reply = await next(call);
      if (reply.kind !== "redirect") return chain.length > 0 && permanent ? moved(reply) : reply;
      chain.push(call.url);
      if (reply.status !== 301 && reply.status !== 308) permanent = false;
      const stop = (reason: string): Reply => ({
        kind: "final",
        outcome: { kind: "error", url: call.url, status: reply.status, reason },
        got: reply.got,
      });
      if (hops === MAX_REDIRECTS) return stop("too many redirects");
      const to = nextHop(call, reply.status, reply.location);
      if (!to.ok) return stop(to.reason);
      const wait = askedWait(reply.got, reply.status);
      if (wait.kind === "stop") return stop(wait.reason);
      if (wait.kind === "until" && wait.at > deps.clock.now()) {
        if (deps.deadline !== undefined && wait.at > deps.deadline) {
          return { kind: "final", outcome: { kind: "deadline", url: to.hop.url }, got: reply.got };
        }
        await deps.clock.sleep(wait.at - deps.clock.now(), call.signal);
      }
      const { body: _body, contentType: _type, ...rest } = call;
      call = {
        ...rest,
        ...to.hop,
        chain: [...chain],
        purpose: call.robotsFor !== undefined ? "robots" : "redirect",
        headers: {},
      } satisfies Call;
    }
    // Unreachable: the loop returns on its last round.
    return final({ kind: "error", url: call.url, status: null, reason: "too many redirects" });
  };

/**
 * P11: a page or feed read (2xx, 304) at the end of redirects that were all permanent (301,
 * 308) says so (`movedPermanently`), so the night can remember where the page now is and ask
 * it there directly. A temporary redirect (302, 303, 307) anywhere in the chain says nothing.
 */
function moved(reply: Reply): Reply {
  if (reply.kind !== "final") return reply;
  const o = reply.outcome;
  if (o.kind !== "ok" && o.kind !== "not-modified") return reply;
  return { ...reply, outcome: { ...o, movedPermanently: true } };
}

/** What a redirect's Retry-After asks of the hop after it (P15 read for a 3xx). */
function askedWait(
  got: Got,
  status: number,
): { kind: "none" } | { kind: "until"; at: number } | { kind: "stop"; reason: string } {
  const r = got.answer;
  if (r.kind !== "response") return { kind: "none" };
  const value = r.headers["retry-after"];
  const asked = readRetryAfter(value, r.endedAt, r.headers["date"]);
  if (asked.kind === "absent") return { kind: "none" };
  if (asked.kind === "unreadable") {
    return {
      kind: "stop",
      reason: `HTTP ${status} with an unreadable Retry-After (${JSON.stringify(value)}): redirect not followed tonight`,
    };
  }
  if (asked.ms > RETRY_AFTER_MAX_MS) {
    return {
      kind: "stop",
      reason: `HTTP ${status} asks to wait ${Math.ceil(asked.ms / 1000)} s before the redirect (Retry-After: ${value}), more than ${RETRY_AFTER_MAX_MS / 1000} s: not followed tonight`,
    };
  }
  return { kind: "until", at: r.endedAt + asked.ms };
}
