/**
 * The admission's input (policy/admission.ts) from what a journal loaded: the same for every
 * implementation of the journal port (memory, SQLite, PostgreSQL).
 */
import type { SendIntent } from "../net/journal.js";
import type { AdmitInput, OwnerRule, PriorAttempt, SiteFacts } from "../policy/admission.js";
import { holderDead } from "./holder.js";

export function admitInput(
  intent: SendIntent,
  holder: string,
  now: number,
  state: { site: SiteFacts; rules: readonly OwnerRule[]; prior: readonly PriorAttempt[] },
): AdmitInput {
  const u = new URL(intent.url);
  return {
    night: intent.night,
    now,
    holder,
    gapMs: intent.gapMs,
    ...(intent.deadline !== undefined ? { deadline: intent.deadline } : {}),
    isRobots: intent.purpose === "robots",
    path: `${u.pathname}${u.search}`,
    ...state,
    replayAllowed: intent.replayAllowed,
    ...(intent.aheadMs !== undefined ? { aheadMs: intent.aheadMs } : {}),
    holderDead: (lease) => holderDead(lease, now),
  };
}
