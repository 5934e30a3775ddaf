/**
 * P24: the flags the checker raises for a person, never acting on them. Pure: tonight's
 * outcome and the source's history in, flags out.
 */
import { isOwnersRequest } from "../policy/admission.js";
import {
  type NightOutcomeKind,
  NO_OUTCOMES,
  NOT_JUDGED_OUTCOMES,
  type RaisedFlag,
  type SourceHistory,
  type SourceResult,
} from "./types.js";

/** A no on this many nights in a row raises a flag. */
export const NO_NIGHTS_IN_A_ROW = 3;

/** Outcomes of a night on which the source was read (it answered and robots.txt allowed it). */
const READ_OUTCOMES: ReadonlySet<NightOutcomeKind> = new Set(["ok", "unchanged", "no-records"]);

export function flagsFor(result: SourceResult, history: SourceHistory): RaisedFlag[] {
  const flags: RaisedFlag[] = [...result.flags];
  const kind = result.outcome.kind;
  // P20, P23: a night the checker itself was offline says nothing about the site: it raises
  // nothing, and it neither counts toward nor breaks a run of nights.
  if (kind === "checker-offline") return flags;
  // An owner's request (the whole site not read, a path left alone) is the operator's own
  // decision: not a no from the site, nor a robots.txt change; it raises nothing.
  if (isOwnersRequest(result.outcome.reason)) return flags;
  // Nights on which the source was not judged (not asked, or cut short by the deadline before
  // its check ended, P13) say no more about the site than an offline one: left out of the run.
  const recent = history.recentOutcomes.filter((k) => !NOT_JUDGED_OUTCOMES.has(k));
  if (NO_OUTCOMES.has(kind)) {
    const earlier = recent.slice(0, NO_NIGHTS_IN_A_ROW - 1);
    if (earlier.length === NO_NIGHTS_IN_A_ROW - 1 && earlier.every((k) => NO_OUTCOMES.has(k))) {
      flags.push({
        kind: "no-three-nights",
        detail: `a no on ${NO_NIGHTS_IN_A_ROW} nights in a row`,
      });
    }
  }
  if (kind === "no-records" && history.recordsKnown > 0) {
    flags.push({
      kind: "no-records",
      detail: `opens but shows no records (${history.recordsKnown} known from earlier nights)`,
    });
  } else if (kind === "no-records") {
    // A source that has never shown a record (its recipe may not fit the page, or the address
    // is the wrong one): for a person once it has opened empty on three nights in a row.
    const earlier = recent.slice(0, NO_NIGHTS_IN_A_ROW - 1);
    if (earlier.length === NO_NIGHTS_IN_A_ROW - 1 && earlier.every((k) => k === "no-records")) {
      flags.push({
        kind: "no-records",
        detail: `opens but has shown no records on ${NO_NIGHTS_IN_A_ROW} nights in a row, and none ever`,
      });
    }
  }
  // "Now disallows": the source was read on an earlier night and the last night was not
  // already a disallow (a source disallowed from its first night is not news to anyone).
  if (
    kind === "disallowed" &&
    recent[0] !== "disallowed" &&
    recent.some((k) => READ_OUTCOMES.has(k))
  ) {
    flags.push({
      kind: "robots-disallows",
      detail: `robots.txt now disallows ${result.outcome.url ?? "the page"}`,
    });
  }
  // P7: a backfill that gave up on an older page tonight is for a person, who may ask it
  // again (`nor backfill restart`); never raised again for the same end. One that was paused
  // ("off") and gives up the night it goes on again gave up tonight.
  const end = result.backfill?.ended;
  const before = history.backfill;
  const endedBefore = before?.done === true && before.ended?.why !== "off";
  if (end?.why === "gave-up" && !endedBefore) {
    flags.push({
      kind: "backfill-gave-up",
      detail: `its older pages gave up on ${end.url ?? "a page"}${end.reason ? ` (${end.reason})` : ""}; \`nor backfill restart ${result.sourceId}\` asks it again`,
    });
  }
  // P7: a day's overflow carried over that gave up tonight (its page failing nights running):
  // the records past that page are never read. For a person, once (the carry-over is cleared
  // with it, so no later night gives it up again).
  const overflow = result.overflow;
  if (overflow !== undefined && "done" in overflow && overflow.gaveUp !== undefined) {
    const g = overflow.gaveUp;
    flags.push({
      kind: "overflow-gave-up",
      detail: `a day's overflow carried over since the night of ${g.since} gave up on ${g.url} (${g.reason}): the records the list shows from that page until those held before ${g.since} are not read; look at the list`,
    });
  }
  // P11: a catalog URL that moved permanently tonight (remembered: asked at its new address
  // from now on) is for a person, who updates the catalog. Raised the night the move is first
  // seen, never again while it is remembered; a move found again to another page (the first
  // target gone) is told again, naming it (the store keeps one open flag a detail for this kind,
  // FLAGS_TOLD_BY_DETAIL).
  for (const m of result.moves ?? []) {
    if (m.kind !== "remember") continue;
    flags.push({
      kind: "moved",
      detail: `${m.from} has moved permanently (301/308) to ${m.to}: the checker asks it there from now on; update the catalog's url`,
    });
    break;
  }
  return flags;
}
