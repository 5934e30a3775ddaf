/**
 * The windows of "what is new": since yesterday, the last 7 or 30 days, or any one past
 * night. Windows are ranges of night keys (the date a night began, in Ohio's zone:
 * src/policy/night-date.ts), so "since yesterday" means the nights of yesterday and today,
 * whatever hour the page is asked at, and a record is in a window exactly when its night is.
 */
import { addDays, nightOf } from "../../policy/night-date.js";
import type { NightRange, NightRow } from "../../store/read/new-records.js";
import { echo } from "./echo.js";
import { nightShort, timeEt } from "./format.js";

export type WindowKey = "yesterday" | "7d" | "30d" | "night";
export const WINDOW_KEYS: readonly Exclude<WindowKey, "night">[] = ["yesterday", "7d", "30d"];

export interface NewWindow {
  key: WindowKey;
  range: NightRange;
  /**
   * "since yesterday", "in the last 7 days", "on the night of Nov 4" (a night of another year
   * than today's with its year: "on the night of Nov 4, 2025").
   */
  label: string;
  /** The night key of when it was asked for: another year's night is written with its year. */
  today: string;
  /** The query that selects this window again (`window=7d` or `night=…`). */
  query: Record<string, string>;
}

export type WindowResult = { ok: true; window: NewWindow } | { ok: false; message: string };

const NIGHT = /^\d{4}-\d{2}-\d{2}$/;

export function parseWindow(
  q: { window?: string | undefined; night?: string | undefined },
  now: number,
): WindowResult {
  const today = nightOf(now);
  const night = q.night?.trim();
  const w = q.window?.trim() || undefined;
  if (night) {
    if (w && w !== "night") {
      return { ok: false, message: "Choose a window or a night, not both." };
    }
    let valid = NIGHT.test(night);
    if (valid) {
      try {
        addDays(night, 0);
      } catch {
        valid = false;
      }
    }
    if (!valid) {
      return { ok: false, message: `"${echo(night)}" is not a night; write it as YYYY-MM-DD.` };
    }
    if (night > today) {
      return { ok: false, message: `The night of ${nightShort(night, today)} has not come yet.` };
    }
    return {
      ok: true,
      window: {
        key: "night",
        range: { from: night, to: night },
        label: `on the night of ${nightShort(night, today)}`,
        today,
        query: { night },
      },
    };
  }
  const key = w ?? "yesterday";
  const days = key === "yesterday" ? 1 : key === "7d" ? 6 : key === "30d" ? 29 : undefined;
  if (days === undefined) {
    return {
      ok: false,
      message: `Unknown window "${echo(key)}". Use one of: ${WINDOW_KEYS.join(", ")}, or night=YYYY-MM-DD.`,
    };
  }
  const label =
    key === "yesterday"
      ? "since yesterday"
      : key === "7d"
        ? "in the last 7 days"
        : "in the last 30 days";
  return {
    ok: true,
    window: {
      key: key as WindowKey,
      range: { from: addDays(today, -days), to: today },
      label,
      today,
      query: key === "yesterday" ? {} : { window: key },
    },
  };
}

export type NightState =
  | { kind: "finished"; text: string }
  | { kind: "running"; text: string }
  | { kind: "incomplete"; text: string }
  | { kind: "did-not-run"; text: string }
  | { kind: "checker-offline"; text: string }
  | { kind: "not-yet"; text: string }
  | { kind: "not-listed"; text: string };

/**
 * When the pages a window is about were first listed (the first of them, for a filter or the
 * whole directory), and how to name them: a night before it had nothing of theirs to check.
 */
export interface ScopeListing {
  /** ISO instant of the first listing; undefined when none was ever listed. */
  at: string | undefined;
  /** "this page", "any page in this selection", "any record page". */
  what: string;
  /**
   * Nights begun before the listing that checked pages of the selection all the same (the night
   * resumed once they were added): theirs is the night's own state.
   */
  checked?: ReadonlySet<string>;
}

/**
 * The nights of `rows` that began before `listedAt` (which nightState would call "not listed"
 * for the selection): those whose pages' check must be looked up (nightsCheckedIn).
 */
export function nightsBeforeListing(
  rows: readonly NightRow[],
  range: NightRange,
  listedAt: string | undefined,
): string[] {
  if (listedAt === undefined) return [];
  const at = Date.parse(listedAt);
  return rows
    .filter((r) => r.night >= range.from && r.night <= range.to && at > Date.parse(r.startedAt))
    .map((r) => r.night);
}

/**
 * What became of each night of a range, newest first, in words a visitor can trust: a night
 * still inside its deadline is running; past it and not finished, it ended incomplete; a date
 * with no night at all did not run (the checker was offline); a night before the directory's
 * first, or before the pages in question were listed, claims no outage.
 */
export function nightStates(
  range: NightRange,
  rows: readonly NightRow[],
  now: number,
  first?: string,
  listed?: ScopeListing,
): { night: string; state: NightState }[] {
  const byNight = new Map(rows.map((r) => [r.night, r]));
  const today = nightOf(now);
  const out: { night: string; state: NightState }[] = [];
  // Bounded: a range is at most 30 nights (parseWindow), never more than 400 steps.
  for (let d = range.to, i = 0; d >= range.from && i < 400; d = addDays(d, -1), i++) {
    out.push({ night: d, state: nightState(byNight.get(d), d, today, now, first, listed) });
  }
  return out;
}

/** A night unfinished whose checker has sent nothing for this long is not said to be running. */
export const QUIET_NIGHT_MS = 15 * 60_000;

export function nightState(
  row: NightRow | undefined,
  night: string,
  today: string,
  now: number,
  first?: string,
  listed?: ScopeListing,
): NightState {
  const notListed = (): NightState => ({
    kind: "not-listed",
    text:
      listed !== undefined && listed.at === undefined
        ? // None was ever listed: no night will have anything of this selection's to check.
          `Nothing could be new on the night of ${nightShort(night, today)}: no record page in the directory matches this selection.`
        : `Nothing could be new on the night of ${nightShort(night, today)}: it came before ${listed?.what ?? "any record page"} was listed in the directory.`,
  });
  if (!row) {
    if (night < today && first === undefined)
      return {
        kind: "not-yet",
        text: `No night has run yet: nothing was checked on the night of ${nightShort(night, today)}.`,
      };
    if (night < today && first !== undefined && night < first)
      return {
        kind: "not-yet",
        text: `The night of ${nightShort(night, today)} came before the directory began checking.`,
      };
    if (night >= today)
      return {
        kind: "not-yet",
        // Before the first night ever, tonight's may not run at all (a directory started after
        // its start runs the next one): said as what is known, nothing checked yet.
        text:
          first === undefined
            ? `No night has run yet: nothing has been checked (the night of ${nightShort(night, today)} included).`
            : `The night of ${nightShort(night, today)} has not started yet.`,
      };
    // Listed by the end of that date, a night was due; listed later, none was due for it.
    if (listed && (listed.at === undefined || nightOf(Date.parse(listed.at)) > night))
      return notListed();
    return {
      kind: "did-not-run",
      text: `No check ran on the night of ${nightShort(night, today)} (the checker was offline); nothing was seen that night.`,
    };
  }
  // A night that began before the pages were listed had nothing of theirs to check, unless it
  // checked some all the same (resumed with them once they were added: `checked`).
  if (
    listed &&
    !listed.checked?.has(night) &&
    (listed.at === undefined || Date.parse(listed.at) > Date.parse(row.startedAt))
  )
    return notListed();
  const offline = row.checkerOffline ?? 0;
  if (offline > 0) {
    // P20, P23: the checker's own outage: not "nothing new", and not the sites' no.
    return {
      kind: "checker-offline",
      text: `On the night of ${nightShort(night, today)} the checker could not reach the internet: ${offline === 1 ? "1 page was" : `${offline} pages were`} not checked, so nothing could be seen from ${offline === 1 ? "it" : "them"} that night. That was the checker's problem, not the sites'.`,
    };
  }
  if (row.finishedAt && row.closedIncomplete) {
    // P13: interrupted and not resumed in time, closed when its time was over.
    return {
      kind: "incomplete",
      text: `The night of ${nightShort(night, today)} started ${timeEt(row.startedAt)} but was interrupted and ended before it finished (closed ${timeEt(row.finishedAt)}): some pages were not checked and go first the next night.`,
    };
  }
  if (row.finishedAt) {
    return {
      kind: "finished",
      text: `The night of ${nightShort(night, today)} ran from ${timeEt(row.startedAt)} and finished ${timeEt(row.finishedAt)}.`,
    };
  }
  if (now <= Date.parse(row.deadlineAt)) {
    // A night whose process stopped (killed, the machine down) stays open until its time is
    // over, and resumes when the checker runs again: said as what is known, not as running.
    const last = row.lastRequestAt === undefined ? Number.NaN : Date.parse(row.lastRequestAt);
    if (!(now - last <= QUIET_NIGHT_MS) && now - Date.parse(row.startedAt) > QUIET_NIGHT_MS) {
      return {
        kind: "running",
        text: `The night of ${nightShort(night, today)} started ${timeEt(row.startedAt)} and has not finished, but no request has gone out ${Number.isNaN(last) || row.lastRequestAt === undefined ? "since it started" : `since ${timeEt(row.lastRequestAt)}`}: it may have stopped, and goes on when the checker runs again; more may appear.`,
      };
    }
    return {
      kind: "running",
      text: `The night of ${nightShort(night, today)} started ${timeEt(row.startedAt)} and is still running; more may appear.`,
    };
  }
  return {
    kind: "incomplete",
    text: `The night of ${nightShort(night, today)} started ${timeEt(row.startedAt)} but ended before it finished: some pages were not checked and go first the next night.`,
  };
}
