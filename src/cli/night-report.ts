/**
 * What `nor night` tells a person: a start line, a progress line, and an end summary with
 * what to look at next. Pure functions of what the night reports (no clock read here), so
 * the words are tested without running a night; the command writes them to a terminal, or
 * as one structured log line each when stderr is not a terminal.
 */
import type { DurableSummary } from "../night/durable-window.js";
import { formatLeft } from "../night/duration.js";
import type { OfflineReport } from "../night/run-night.js";
import type { NightOutcomeKind } from "../night/types.js";
import { wallTimeAt } from "../policy/zone.js";
import { countOf as plural } from "./count-of.js";

const ZONE = "America/New_York";

export interface NightStart {
  night: string;
  resumed: boolean;
  deadlineAt: number;
  sources: number;
  sites: number;
}

export interface NightProgressView {
  done: number;
  total: number;
  requests: number;
  deadlineAt: number;
}

export interface NightEnd {
  night: string;
  resumed: boolean;
  deadlineAt: number;
  /** When this run began, and ended (ms). */
  startedAt: number;
  endedAt: number;
  planned: number;
  alreadyDone: number;
  skippedNotRead: number;
  outcomes: Partial<Record<NightOutcomeKind, number>>;
  newRecords: number;
  /** Records first seen but already listed: sources read for the first time, older pages (P7). */
  alreadyListed?: number;
  requests: number;
  /** Flags raised for a person during the night (P24, P25). */
  flagsRaised: number;
  /** Of the unreached, those their site's wait or its owner's pace held past the night (P13). */
  held?: number;
  /** Of the unreached, those whose site was down tonight (a 5xx after a request's retries). */
  down?: number;
  /**
   * Of the cut short, those the deadline did not cut: a recheck whose redirect's next request
   * was not sent as its site was down tonight or asked to wait (P25).
   */
  cutNotByDeadline?: number;
  /** P20, P23: the checker could not reach the internet (see `offlineMessage`). */
  checkerOffline?: boolean;
  offline?: OfflineReport;
  /** P8, P27: from an answer's last byte to its durable journal row, in this process (ms). */
  durableMs?: DurableSummary;
}

/** `07:00` New York time, with the date when it is not `night`'s. */
export function clockText(t: number, night?: string): string {
  const w = wallTimeAt(t, ZONE);
  const p = (n: number) => String(n).padStart(2, "0");
  const date = `${w.year}-${p(w.month)}-${p(w.day)}`;
  const time = `${p(w.hour)}:${p(w.minute)}`;
  return date === night ? time : `${date} ${time}`;
}

/**
 * The command the person ran: `nor night`; `nor start`, which runs each night as a `nor night`
 * process of its own (with --served-at) while it serves the directory; or `nor demo`, which
 * runs its two nights while it serves the directory.
 */
export type NightBy = "nor night" | "nor start" | "nor demo";

/** Who the night's lines speak for, and where the directory is served when that is known. */
export interface ReportedBy {
  by: NightBy;
  /** The directory's address (`nor start` serves it: `http://127.0.0.1:8080/`). */
  directory?: string;
}

const BY_HAND: ReportedBy = { by: "nor night" };

export function startLine(s: NightStart, now: number, by: NightBy = "nor night"): string {
  const verb = s.resumed ? "resuming" : "starting";
  return (
    `${by}: ${verb} night ${s.night} · deadline ${clockText(s.deadlineAt, s.night)} New York ` +
    `(${formatLeft(s.deadlineAt - now)} from now) · ${plural(s.sources, "source")} on ${plural(s.sites, "site")}`
  );
}

const BAR = 20;

/** `[#######·············] 7/20 sources · 9 requests · 5h 58m left to the deadline` */
export function progressLine(p: NightProgressView, now: number): string {
  const filled = p.total > 0 ? Math.min(BAR, Math.round((p.done / p.total) * BAR)) : BAR;
  const bar = `[${"#".repeat(filled)}${"·".repeat(BAR - filled)}]`;
  return `${bar} ${p.done}/${plural(p.total, "source")} · ${plural(p.requests, "request")} · ${formatLeft(p.deadlineAt - now)} left to the deadline`;
}

/** Outcome kinds in the order a person reads them: good news first, then what needs a look. */
const ORDER: readonly NightOutcomeKind[] = [
  "ok",
  "unchanged",
  "no-records",
  "refused",
  "disallowed",
  "robots-unavailable",
  "unreachable",
  "timed-out",
  "too-large",
  "gone",
  "error",
  "extract-error",
  "cut-short",
  "unreached",
  "left-alone",
  "recheck-still-no",
  "recheck-answers",
  "checker-offline",
];

export function outcomesText(outcomes: NightEnd["outcomes"]): string {
  const parts = ORDER.filter((k) => (outcomes[k] ?? 0) > 0).map((k) => `${outcomes[k]} ${k}`);
  return parts.length > 0 ? parts.join(", ") : "no source checked";
}

/** What a person might look at next, given how the night went. */
export function nextSteps(e: NightEnd, by: ReportedBy = BY_HAND): string[] {
  const n = (k: NightOutcomeKind) => e.outcomes[k] ?? 0;
  const out: string[] = [];
  if (n("checker-offline") > 0)
    out.push(
      `${plural(n("checker-offline"), "source")} not judged: the checker could not reach the internet; check this machine's network and DNS, then run the next night (P20, P23)`,
    );
  if (e.flagsRaised > 0)
    out.push(`${plural(e.flagsRaised, "flag")} for a person: \`nor flags\` (P24)`);
  const no = n("refused") + n("disallowed") + n("robots-unavailable");
  if (no > 0)
    out.push(`${plural(no, "source")} said no or could not be asked: \`nor status\` shows why`);
  const broken =
    n("unreachable") +
    n("timed-out") +
    n("too-large") +
    n("gone") +
    n("error") +
    n("extract-error");
  if (broken > 0) out.push(`${plural(broken, "source")} failed: \`nor status\` and \`nor log\``);
  if (n("no-records") > 0)
    out.push(`${plural(n("no-records"), "source")} opened but showed no records: check the recipe`);
  if (n("cut-short") > 0)
    out.push(
      `${plural(n("cut-short"), "source")} cut short: asked and answered, but a retry or next request would have started after the deadline, or (a recheck) the site its redirect leads to, or its own before its retry, was down or asked to wait (\`nor status\` says what each answered); those the deadline cut go first next night (P13, P15, P25)`,
    );
  const held = Math.min(e.held ?? 0, n("unreached"));
  const down = Math.min(e.down ?? 0, n("unreached") - held);
  if (n("unreached") - held - down > 0)
    out.push(
      `${plural(n("unreached") - held - down, "source")} not reached before the deadline: they go first next night (P13)`,
    );
  if (down > 0)
    out.push(
      `${plural(down, "source")} not asked: their site was down (a 5xx after its retries, or a Retry-After over 60 s), not asked again that night (\`nor status\` says what it answered); not a no; they go first next night (P13, P15)`,
    );
  if (held > 0)
    out.push(
      `${plural(held, "source")} not asked: their site asked for a wait, or its owner for a slower pace, that ends after the night (\`nor status\` says until when); they go first next night (P13)`,
    );
  // Under `nor start` the directory is served already: its address, not `nor serve`.
  const served = by.directory;
  if (e.newRecords > 0)
    out.push(
      served !== undefined
        ? `the new records: ${new URL("new", served).href}`
        : "the new records: `nor serve`, then /new",
    );
  if (out.length === 0)
    out.push(
      `nothing needs a look; the directory: ${served !== undefined ? served : "`nor serve`"}`,
    );
  return out;
}

/** The end summary as lines, for a terminal. */
export function summaryLines(e: NightEnd, by: ReportedBy = BY_HAND): string[] {
  const used = formatLeft(e.endedAt - e.startedAt);
  const allowed = formatLeft(e.deadlineAt - e.startedAt);
  const over = e.endedAt >= e.deadlineAt ? " (the deadline was reached)" : "";
  const lines = [
    `${by.by}: night ${e.night} ${e.resumed ? "resumed and " : ""}done`,
    `  checked:   ${plural(e.planned, "source")}: ${outcomesText(e.outcomes)}`,
  ];
  if (e.alreadyDone > 0)
    lines.push(
      `  earlier:   ${e.alreadyDone} done before this run began (a restart, or another process of the night)`,
    );
  if (e.skippedNotRead > 0) lines.push(`  not read:  ${e.skippedNotRead} marked by a person (P24)`);
  lines.push(
    `  new:       ${plural(e.newRecords, "new record")}${
      e.alreadyListed
        ? ` (and ${plural(e.alreadyListed, "record")} already listed: first reads and older pages, not new)`
        : ""
    }`,
    `  requests:  ${e.requests}`,
    `  time:      ${used} used of ${allowed} to the deadline (${clockText(e.deadlineAt, e.night)} New York)${over}`,
    `  flags:     ${e.flagsRaised} raised`,
    ...(e.durableMs
      ? [
          `  durable:   answers kept ${e.durableMs.p50} ms after their last byte (median; 99%: ${e.durableMs.p99} ms, longest ${e.durableMs.max} ms)`,
        ]
      : []),
    "next:",
    ...nextSteps(e, by).map((s) => `  - ${s}`),
  );
  return lines;
}

/** The same summary as one structured record, for log lines. */
export function summaryRecord(e: NightEnd, by: ReportedBy = BY_HAND): Record<string, unknown> {
  return {
    resumed: e.resumed,
    planned: e.planned,
    alreadyDone: e.alreadyDone,
    skippedNotRead: e.skippedNotRead,
    outcomes: e.outcomes,
    newRecords: e.newRecords,
    alreadyListed: e.alreadyListed ?? 0,
    requests: e.requests,
    usedMs: e.endedAt - e.startedAt,
    deadlineAt: new Date(e.deadlineAt).toISOString(),
    deadlineReached: deadlineReached(e),
    flagsRaised: e.flagsRaised,
    checkerOffline: e.checkerOffline === true,
    ...(e.durableMs ? { durableMs: e.durableMs } : {}),
    next: nextSteps(e, by),
  };
}

/**
 * P20, P23: why `nor night` exits 1 when the checker itself was offline: whose problem it was,
 * how it was told, and that nothing was judged about the sites.
 */
export function offlineMessage(o: OfflineReport): string {
  const how = o.canary
    ? `the canary ${o.canary.url} failed (${o.canary.reason})`
    : `${o.failedSites} of ${plural(o.sites, "site")} failed with DNS/connect errors`;
  return `the checker could not reach the internet: ${how}; nothing was judged about them (${plural(o.sources, "source")} recorded as checker-offline)`;
}

/**
 * The night met its deadline: this run ended past it, or it left sources unreached or cut
 * short, whichever run met it. Not those their site's down, wait or owner's pace kept (P13,
 * P15), nor a recheck whose redirect led to a site down or asking to wait (P25): a night that
 * ended with time to spare says so.
 */
function deadlineReached(e: NightEnd): boolean {
  const unreached = e.outcomes.unreached ?? 0;
  const cut = e.outcomes["cut-short"] ?? 0;
  return (
    e.endedAt >= e.deadlineAt ||
    unreached - (e.held ?? 0) - (e.down ?? 0) > 0 ||
    cut - (e.cutNotByDeadline ?? 0) > 0
  );
}
