import type { Clock } from "../clock.js";
import { NorError } from "../errors.js";
import { MAX_BODY_BYTES, MAX_RETRIES } from "../policy/constants.js";
import { classifyAttempt, labelOf, type Step } from "./classify.js";
import { type AttemptResult, type ExchangeDeps, exchange } from "./exchange.js";
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

function isClosed(r: AttemptResult): boolean {
  if (r.kind === "failure") return r.failure === "closed" || r.failure === "reset";
  return r.read.kind === "failed" && r.read.failure !== "timeout-body";
}

/**
 * P15: one URL, up to 1 + MAX_RETRIES attempts. Each retry is a new attempt (its own log
 * entry, attempt number) that starts no sooner than the wait after the previous one ended
 * AND no sooner than the site gap: the gate takes the later of the two.
 */
export async function attempts(
  deps: ExchangeDeps & { clock: Clock },
  input: AttemptsInput,
): Promise<Step | "deadline"> {
  let notBefore: number | undefined;
  let allClosed = true;
  for (let attempt = 1; attempt <= MAX_RETRIES + 1; attempt++) {
    let step: Step | undefined;
    const closedBefore = allClosed;
    const ran = await exchange(deps, {
      method: input.hop.method,
      url: input.hop.url,
      headers: input.headers,
      ...(input.hop.body !== undefined ? { body: input.hop.body } : {}),
      purpose: input.purpose,
      ...(input.source !== undefined ? { source: input.source } : {}),
      attempt,
      ...(input.validatorsSent ? { validatorsSent: input.validatorsSent } : {}),
      limit: MAX_BODY_BYTES,
      gapMs: input.gapMs,
      ...(notBefore !== undefined ? { notBefore } : {}),
      keepBody: input.keepBody,
      ...(input.signal ? { signal: input.signal } : {}),
      label: (r) => {
        step = classifyAttempt(r, {
          url: input.hop.url,
          attempt,
          now: deps.clock.now(),
          allClosedSoFar: closedBefore,
          keepBody: input.keepBody,
          chain: input.chain,
        });
        const evidence =
          step.kind === "final" && step.outcome.kind === "refused"
            ? step.outcome.evidence
            : undefined;
        return { outcome: labelOf(step), ...(evidence ? { evidence } : {}) };
      },
    });
    if (!ran.ran) return "deadline";
    const r = ran.value;
    if (r.kind === "response") input.onResponse(r);
    allClosed &&= isClosed(r);
    if (!step) throw new NorError("E_INTERNAL", "attempt finished without a classification");
    if (step.kind !== "retry") return step;
    notBefore = r.endedAt + step.waitMs;
  }
  throw new NorError("E_INTERNAL", `retryDecision allowed more than ${MAX_RETRIES} retries`);
}
