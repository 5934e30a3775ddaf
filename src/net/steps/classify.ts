import type { Clock } from "../../clock.js";
import { classifyAttempt, isClosedEarly, labelOf } from "../classify.js";
import type { Call, Got, Judged, Reply, Step } from "../pipeline.js";
import { judgeRobots } from "../robots-answer.js";

/**
 * P15, P21 (and P14, P20): what an answer means, decided once, from the answer alone (no
 * network here). A page: transport failures, cut bodies, limits, a no whatever its status
 * (a challenge page, 401/403, a 429 that outlasted its retries, TLS, closed on every
 * attempt), redirects, then status classes; a 5xx/429/closed connection is a retry while
 * retries are left (the attempt number comes from the journal). A robots.txt answer: the
 * entry its origin's cache keeps (P20), a redirect, or a no (P21, challenge detection run
 * once). Either way, the journal's row gets its word, evidence and whether the site closed.
 */
export const classify =
  (deps: { clock: Clock }): Step =>
  (next) =>
  async (call) => {
    const reply = await next(call);
    if (reply.kind !== "answer" || reply.got.failed !== undefined) return reply;
    try {
      return call.robotsFor !== undefined
        ? robots(call, reply.got)
        : page(call, reply.got, deps.clock.now());
    } catch (err) {
      // A bug here still leaves the row with the answer's end (the journal step).
      return { kind: "answer", got: { ...reply.got, failed: err } };
    }
  };

function attemptOf(call: Call): { attempt: number; priorAllClosed: boolean } {
  const t = call.ticket;
  if (t?.kind === "send") return { attempt: t.attempt, priorAllClosed: t.priorAllClosed };
  if (t?.kind === "replay") {
    return { attempt: t.stored.attempt, priorAllClosed: t.stored.priorAllClosed };
  }
  return { attempt: 1, priorAllClosed: false };
}

function page(call: Call, got: Got, now: number): Reply {
  const { attempt, priorAllClosed } = attemptOf(call);
  const step = classifyAttempt(got.answer, {
    url: call.url,
    attempt,
    now,
    allClosedSoFar: priorAllClosed,
    keepBody: call.keepBody,
    chain: call.chain,
    conditional: call.validatorsSent !== undefined,
  });
  const refusal = step.kind === "final" && step.outcome.kind === "refused" ? step.outcome : null;
  const judged: Judged = {
    label: labelOf(step),
    ...(refusal ? { evidence: refusal.evidence } : {}),
    final: step.kind !== "retry",
    closedEarly: isClosedEarly(got.answer),
    ...(step.kind === "retry" ? { retryWaitMs: step.waitMs } : {}),
    ...(step.kind === "final" && step.closeSite !== undefined ? { closeSite: step.closeSite } : {}),
    ...(step.kind === "final" && step.downSite !== undefined ? { downSite: step.downSite } : {}),
    // P27: a part of the page (206, unasked) is a failed read; the row says why.
    ...(step.kind === "final" && step.outcome.kind === "error" && step.outcome.status === 206
      ? { failure: step.outcome.reason }
      : {}),
  };
  const g: Got = { ...got, judged };
  if (step.kind === "retry") return { kind: "retry", waitMs: step.waitMs, got: g };
  if (step.kind === "redirect") {
    return { kind: "redirect", status: step.status, location: step.location, got: g };
  }
  return { kind: "final", outcome: step.outcome, got: g };
}

/** A robots.txt attempt is never retried (P20): every answer is final. */
function robots(call: Call, got: Got): Reply {
  const j = judgeRobots(got.answer, {
    url: call.url,
    hops: call.chain.length,
    conditional: call.validatorsSent !== undefined,
  });
  const judged: Judged = {
    label: j.label,
    final: true,
    closedEarly: isClosedEarly(got.answer),
    ...(j.kind === "stop" && j.outcome.kind === "refused"
      ? { evidence: j.outcome.evidence, closeSite: j.outcome.reason }
      : {}),
    ...(j.kind === "answer" && j.failure !== undefined ? { failure: j.failure } : {}),
  };
  const g: Got = { ...got, judged };
  if (j.kind === "stop") return { kind: "final", outcome: j.outcome, got: g };
  if (j.kind === "redirect") {
    return { kind: "redirect", status: j.status, location: j.location, got: g };
  }
  return { kind: "robots", notModified: j.notModified, entry: j.entry, url: call.url, got: g };
}
