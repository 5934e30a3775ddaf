import type { Clock } from "../clock.js";
import { MAX_BODY_BYTES, MAX_RETRIES } from "../policy/constants.js";
import { classifyAttempt, labelOf, type Step } from "./classify.js";
import { type AttemptResult, type ExchangeDeps, exchange, type Judged } from "./exchange.js";
import type { Hop } from "./redirects.js";
import type { Purpose, Validators } from "./types.js";

export interface AttemptsInput {
  hop: Hop;
  headers: Record<string, string>;
  purpose: Purpose;
  source?: string;
  validatorsSent?: Validators;
  keepBody: boolean;
  chain: string[];
  gapMs: number;
  signal?: AbortSignal;
  onResponse(r: AttemptResult & { kind: "response" }): void;
}

/** What stopped a request before it was sent (from the journal's admission). */
export type NotSent =
  | { kind: "deadline"; reason: string }
  | { kind: "closed"; reason: string }
  | { kind: "left-alone"; reason: string };

export function isClosedEarly(r: AttemptResult): boolean {
  if (r.kind === "failure") return r.failure === "closed" || r.failure === "reset";
  return r.read.kind === "failed" && r.read.failure !== "timeout-body";
}

/**
 * P15: one URL, up to 1 + MAX_RETRIES attempts a night, counted in the journal, so a restart
 * never resets the count. Each retry is a new attempt (its own row and number) that the
 * journal admits no sooner than the wait after the previous one ended and no sooner than the
 * site gap. An answer already received in full tonight is replayed, not asked again (P8).
 */
export async function attempts(
  deps: ExchangeDeps & { clock: Clock },
  input: AttemptsInput,
): Promise<Step | NotSent> {
  let step: Step | undefined;
  const judge = (r: AttemptResult, attempt: number, priorAllClosed: boolean): Judged => {
    step = classifyAttempt(r, {
      url: input.hop.url,
      attempt,
      now: deps.clock.now(),
      allClosedSoFar: priorAllClosed,
      keepBody: input.keepBody,
      chain: input.chain,
    });
    const evidence =
      step.kind === "final" && step.outcome.kind === "refused" ? step.outcome.evidence : undefined;
    return {
      outcome: labelOf(step),
      ...(evidence ? { evidence } : {}),
      final: step.kind !== "retry",
      closedEarly: isClosedEarly(r),
      ...(step.kind === "retry" ? { retryWaitMs: step.waitMs } : {}),
      ...(step.kind === "final" && step.closeSite !== undefined
        ? { closeSite: step.closeSite }
        : {}),
    };
  };
  // Bounded: at most 1 + MAX_RETRIES sends, plus one replay.
  for (let round = 0; round < MAX_RETRIES + 3; round++) {
    step = undefined;
    const ran = await exchange(deps, {
      method: input.hop.method,
      url: input.hop.url,
      headers: input.headers,
      ...(input.hop.body !== undefined ? { body: input.hop.body } : {}),
      purpose: input.purpose,
      ...(input.source !== undefined ? { source: input.source } : {}),
      ...(input.validatorsSent ? { validatorsSent: input.validatorsSent } : {}),
      limit: MAX_BODY_BYTES,
      gapMs: input.gapMs,
      keepBody: input.keepBody,
      ...(input.signal ? { signal: input.signal } : {}),
      judge,
    });
    if (!ran.ran) {
      if (ran.why === "exhausted") {
        return {
          kind: "final",
          outcome: { kind: "error", url: input.hop.url, status: null, reason: ran.reason },
        };
      }
      return { kind: ran.why, reason: ran.reason };
    }
    const r = ran.value;
    if (r.kind === "response") input.onResponse(r);
    const s = step as Step | undefined;
    if (!s)
      return {
        kind: "final",
        outcome: { kind: "error", url: input.hop.url, status: null, reason: "attempt not judged" },
      };
    if (s.kind !== "retry") return s;
    if (ran.replayed) {
      // A stored answer is final by construction; never loop on one.
      return {
        kind: "final",
        outcome: {
          kind: "error",
          url: input.hop.url,
          status: null,
          reason: "answered earlier tonight",
        },
      };
    }
  }
  return {
    kind: "final",
    outcome: { kind: "error", url: input.hop.url, status: null, reason: "retries exhausted" },
  };
}
