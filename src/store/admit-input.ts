/**
 * The admission's input (policy/admission.ts) from what a journal loaded: the same for every
 * implementation of the journal port (memory, SQLite, PostgreSQL).
 */
import type { SendIntent } from "../net/journal.js";
import {
  type AdmitInput,
  NOT_SENT,
  type OwnerRule,
  type PriorAttempt,
  requestPath,
  type SiteFacts,
} from "../policy/admission.js";
import { holderDead } from "./holder.js";

export function admitInput(
  intent: SendIntent,
  holder: string,
  now: number,
  state: { site: SiteFacts; rules: readonly OwnerRule[]; prior: readonly PriorAttempt[] },
  /** Holders known to live whatever their lease says (PostgreSQL: holder-liveness.ts). */
  living?: ReadonlySet<string>,
): AdmitInput {
  return {
    night: intent.night,
    now,
    holder,
    gapMs: intent.gapMs,
    ...(intent.deadline !== undefined ? { deadline: intent.deadline } : {}),
    isRobots: intent.purpose === "robots",
    path: requestPath(intent.url),
    ...state,
    replayAllowed: intent.replayAllowed,
    ...(intent.source !== undefined ? { source: intent.source } : {}),
    ...(intent.aheadMs !== undefined ? { aheadMs: intent.aheadMs } : {}),
    holderDead: (lease) => holderDead(lease, now, living),
  };
}

/**
 * An earlier attempt of the request tonight as the admission reads it, from its row as every
 * journal keeps it: its word in the log (`outcome`, `failure`), whether it was final, closed
 * early, and the retry time its head or its death set.
 */
export function priorAttempt(r: {
  final: boolean;
  closedEarly: boolean;
  outcome: string;
  failure: string | null | undefined;
  retryAt: number | undefined;
}): PriorAttempt {
  return {
    final: r.final,
    closedEarly: r.closedEarly,
    interrupted: r.outcome === "interrupted",
    ...(r.outcome === "interrupted" && r.failure?.startsWith(NOT_SENT) ? { notSent: true } : {}),
    ...(r.outcome === "blocked-address" ? { ownRefusal: true } : {}),
    ...(r.retryAt !== undefined ? { retryAt: r.retryAt } : {}),
  };
}
