import { MAX_RETRIES } from "../../policy/constants.js";
import { type AttemptResult, final, type Reply, type Step } from "../pipeline.js";

/**
 * P15: asks again when classify said so (a 5xx, a 429, a connection closed before a full
 * response), at most twice more. Each attempt is a new trip through the site gate: a new
 * journal row, admitted no sooner than the wait after the previous attempt ended (Retry-After
 * or 5 s, then 20 s) and no sooner than the site's gap. The count lives in the journal, so a
 * restart never resets it; classify reads it there. The earlier attempts' answers go up with
 * the last one (their cookies count, P22).
 */
export const retries: () => Step = () => (next) => async (call) => {
  const earlier: AttemptResult[] = [];
  const withEarlier = (reply: Reply): Reply => {
    if (earlier.length === 0) return reply;
    if (
      reply.kind === "final" ||
      reply.kind === "robots" ||
      reply.kind === "redirect" ||
      reply.kind === "robots-stale"
    ) {
      return { ...reply, earlier: [...earlier, ...(reply.earlier ?? [])] };
    }
    return reply;
  };
  // Bounded: at most 1 + MAX_RETRIES sends, plus one replay.
  for (let round = 0; round < MAX_RETRIES + 3; round++) {
    const reply = await next(call);
    if (reply.kind !== "retry") return withEarlier(answeredFirst(reply, earlier));
    earlier.push(reply.got.answer);
    if (reply.got.replayed) {
      // A stored answer is final by construction; never loop on one.
      return withEarlier(
        final({ kind: "error", url: call.url, status: null, reason: "answered earlier tonight" }),
      );
    }
  }
  return withEarlier(
    final({
      kind: "error",
      url: call.url,
      status: null,
      reason: "retries exhausted",
      noAnswer: true,
    }),
  );
};

/**
 * P15, P25: a retry not sent because its site was found down meanwhile (other traffic to it:
 * another lane's page answered a 5xx after its retries) says what this request's latest attempt
 * answered: it was asked, and answered, tonight (FetchOutcome `site-down`'s `answered`).
 */
function answeredFirst(reply: Reply, earlier: readonly AttemptResult[]): Reply {
  const last = earlier.at(-1);
  if (last === undefined || reply.kind !== "final" || reply.outcome.kind !== "site-down")
    return reply;
  const status = last.kind === "response" ? last.status : null;
  return { ...reply, outcome: { ...reply.outcome, answered: { status } } };
}
