/**
 * Whether one request may be sent now, decided from the durable state of its site and of its
 * URL tonight (P9, P10, P13, P15, P21, and the owners' requests). Pure: the journal loads the
 * state inside one write transaction, calls `admit`, and applies what it returns before the
 * transaction commits, so a restart, a second command or another worker reads exactly what
 * the first one wrote.
 */

import { MAX_RETRIES, RETRY_AFTER_MAX_MS } from "./constants.js";
import { LATEST_HOLD_MS } from "./retry.js";
import { compilePattern, normalisePath, normalisePattern } from "./robots/match.js";
import { formatInZone, SITE_OWNER_ZONE } from "./zone.js";

/** The durable state of one site, as the journal keeps it. */
export interface SiteFacts {
  /** End of the last request to the site (ms), from any process. */
  lastEnd?: number;
  /** The request in flight: who sent it and until when the lease holds. */
  lease?: { holder: string; until: number };
  /** P21: the night the site said no, with why. */
  closed?: { night: string; reason: string };
  /**
   * P15, the project's stricter rule beside it: the night the site was down (a request to it
   * ended in a 5xx after its retries, or with a Retry-After over 60 s), with why. Not a no.
   */
  down?: { night: string; reason: string; source?: string };
  /** RFC 9110 §10.2.3: no request to the site before this time (a Retry-After). */
  notBefore?: number;
}

/** A site owner's request, kept per site by the operator, with its reason and date. */
export type OwnerRule =
  | { kind: "gap"; gapMs: number; reason: string; at: number }
  /** `prefix`: a path pattern as robots.txt writes one (`*` any run, a final `$` the end). */
  | { kind: "leave-alone"; prefix: string; reason: string; at: number }
  | { kind: "not-read"; reason: string; at: number };

/** One earlier attempt at the same request tonight (same method, URL, body and validators). */
export interface PriorAttempt {
  /** The answer is complete and stored: never asked again tonight (P8). */
  final: boolean;
  /** No earlier than this may the next attempt start (P15 waits). */
  retryAt?: number;
  /** The attempt was closed before a full response (for "closed on every attempt", P21). */
  closedEarly: boolean;
  /**
   * The checker itself died during it (`kill -9`): the checker's failure, not the site's, so
   * it does not use up a retry (P15 counts what the site answered), unless the site had
   * answered it already: a head asking for a retry (a 429 or 5xx, its `retryAt` written before
   * the body was read) is that answer, and counts as the try it was, its wait kept.
   */
  interrupted: boolean;
  /**
   * Interrupted before it was sent: admitted ahead, then stopped before its planned start (a
   * stop, an owner's rule set meanwhile). The site saw nothing of it.
   */
  notSent?: boolean;
  /**
   * Refused by the checker's own address check (P3: not a public address, and private ones
   * not allowed to this command) before anything left this machine: no answer of the site's,
   * and no try. A command allowed to ask such an address (`--allow-private-addresses`, on
   * loopback) asks it, whatever an earlier one was refused.
   */
  ownRefusal?: boolean;
}

/** The words a row completed without being sent starts with (net/steps/site-gate.ts). */
export const NOT_SENT = "not sent:";

/**
 * Whether a completed attempt counts among the requests a night sent (its summary, the console's
 * night report: store/admin.ts sentByTheNight, the same rule in SQL; a night's progress and its
 * line for each source: night/compose.ts): not one completed without being sent (NOT_SENT), nor
 * one the checker's own address check refused before anything left this machine
 * (blocked-address, P3).
 */
export function leftThisMachine(c: { outcome: string; failure?: string | null }): boolean {
  return c.outcome !== "blocked-address" && !c.failure?.startsWith(NOT_SENT);
}

/**
 * The source `nor discover`'s requests are logged under (night/discover.ts): its rows carry the
 * night's date when one is on (P16, P20), but a night's count of requests leaves them out. Not
 * kebab-case, so no catalog source's id is it: a source listed as `discover` is counted, and its
 * log holds none of nor discover's requests (those logged before this version say `discover`).
 */
export const DISCOVER_SOURCE = "(nor discover)";

/**
 * Why a row left in flight is `interrupted` (P27), by a process that died or whose completion
 * failed (the store or the archive threw): whether its request left is not known (its row was
 * written, up to a moment ahead of its planned start, before it was sent), so the log says so;
 * it counts as sent (P15: politeness first).
 */
export const DIED_IN_FLIGHT =
  "this attempt's end was never written (its process ended, or its completion failed): it was on the wire, or about to leave at its start time; counted as sent";

/**
 * What a row marked `interrupted` by another process (its holder frozen or held up past its
 * lease on the site, then taken over: DIED_IN_FLIGHT) says once its answer is read after all
 * (P27): the site's status, end, bytes, validators and a no's evidence are written on it, and
 * its failure becomes these words, with the log's word for the answer and its own failure. It
 * stays `interrupted`, counted as sent, never replayed: the site is another process's now, which
 * asks and records the page itself.
 */
export function answeredLate(outcome: string, failure?: string): string {
  return `answered late (${outcome}): read after another process took its site over (this one was frozen or held up past its lease); kept for the record, not used; counted as sent${failure !== undefined ? `; ${failure}` : ""}`;
}

/**
 * Whether a completion has anything of the site's answer to write on a row taken over (P27,
 * answeredLate): not one that says it was never sent (NOT_SENT), nor one cut off (a stop, a
 * step below that threw) before any head came, `interrupted` with no status: nothing was read,
 * and the row keeps the word the new holder wrote (on the wire or about to leave, counted as
 * sent). The site's holds in it are kept on the site even so.
 */
export function readSomething(c: { outcome: string; status: number | null; failure?: string }) {
  if (c.failure?.startsWith(NOT_SENT)) return false;
  return !(c.outcome === "interrupted" && c.status === null);
}

/** P15: an attempt the site answered with a retry, whether or not the checker lived to read it all. */
function isTry(p: PriorAttempt): boolean {
  return !p.final && (!p.interrupted || p.retryAt !== undefined);
}

export interface AdmitInput {
  night: string;
  now: number;
  holder: string;
  /** The gap for this request before owners' rules: the floor or the Crawl-delay (P10). */
  gapMs: number;
  deadline?: number;
  /** robots.txt itself is "left alone" only by a rule for the whole site (P18 aside). */
  isRobots: boolean;
  path: string;
  site: SiteFacts;
  rules: readonly OwnerRule[];
  prior: readonly PriorAttempt[];
  /** Whether a stored answer may be replayed instead of asking (false: the copy is gone). */
  replayAllowed: boolean;
  /** The source whose check sends the request, if any (a site down tonight: SiteFacts.down). */
  source?: string;
  /** Whether a lease's holder is dead (its process gone, or its lease run out). */
  holderDead(lease: { holder: string; until: number }): boolean;
  /**
   * How long before its allowed start the request may be admitted (0 when absent; at most
   * MAX_AHEAD_MS): the row is written and the site's lease taken now, with the planned start,
   * and the caller sends at that start, not before. The start is decided as ever, from the
   * durable state; what is saved is the commit's time, off the gap.
   */
  aheadMs?: number;
  /**
   * Whether a site's last end further after now than END_AHEAD_KEPT_MS counts as now
   * (endAsCounted; true when absent): only where every process stamps ends on one clock (one
   * host's: SQLite, memory). On PostgreSQL each process reads the server's time apart (store-
   * clock.ts, measured again every few minutes): an end "ahead" may be one stamped a moment ago
   * by a process still on the server's time before it was set back, and counted (and written)
   * as this process's now, that other process sends with no gap after this one's request. There
   * the end holds as written (fail closed, P10).
   */
  endAheadIsNow?: boolean;
}

export type Admission =
  /**
   * Send at `startedAt` (now, or up to `aheadMs` later: never before it): the row is written
   * with that start and the lease taken.
   */
  | { kind: "go"; attempt: number; priorAllClosed: boolean; startedAt: number; recovered?: string }
  /**
   * Not yet: come back at `until` (the gap, the lease, a retry wait, a Retry-After; for the
   * gap and the waits, `aheadMs` before the start they allow).
   */
  | { kind: "wait"; until: number; why: string; recovered?: string }
  /** Already answered in full tonight: replay the stored answer, ask nothing. */
  | { kind: "answered" }
  /** The site said no tonight, or its owner asked not to be read: nothing goes there. */
  | { kind: "closed"; reason: string }
  /** The owner asked for this path to be left alone: treated as a robots.txt Disallow. */
  | { kind: "left-alone"; reason: string }
  /**
   * The site was down earlier tonight (a 5xx after its retries, or a Retry-After over 60 s):
   * nothing more goes there tonight. Not a no (P21): the source is not reached, and goes first
   * next night (P13).
   */
  | { kind: "down"; reason: string }
  /**
   * The start would fall after the deadline (or past a day): not tonight (P13). `held`, when
   * what puts it there is the site's own wait (a Retry-After, or the wait before a retry) or
   * its owner's slower pace rather than the night's time running out: those words, for the
   * source's outcome (the night did not run out of time; the site's wait did not end in it).
   */
  | { kind: "not-tonight"; reason: string; held?: string }
  /**
   * P15, P20, P21: an attempt's head said this request is not asked again tonight (its
   * retries used up, a Retry-After over 60 s or unreadable, a robots.txt 429 or 5xx), and its
   * body was never read (the checker died, or a step failed): its word stands, as an error.
   */
  | { kind: "done-tonight" }
  /** Every attempt tonight is used (P15), none of them answered. */
  | { kind: "exhausted"; priorAllClosed: boolean };

/** The longest wait a request sleeps through; longer means "not tonight", never a cut sleep. */
export const LONGEST_WAIT_MS = 24 * 60 * 60 * 1000;

/** The furthest ahead of its start a request is admitted (its lease held, nothing sent). */
export const MAX_AHEAD_MS = 1_000;

/**
 * P10 under a clock set back: the furthest after now a site's last end is taken as written (a
 * request admitted ahead and never sent ends at its planned start, up to MAX_AHEAD_MS ahead;
 * machines sharing PostgreSQL read its clock to a few milliseconds).
 */
export const END_AHEAD_KEPT_MS = 60_000;

/**
 * A site's last end as the gap counts from it: further after now than END_AHEAD_KEPT_MS, it was
 * stamped by a clock running ahead (a night run with the host's clock days fast, then set right
 * by NTP). That request really ended at the latest now, so the gap is counted from now: never
 * from days ahead (the site would be held away for days), never from before now (politeness
 * does not fail open). The journals write now in its place (so the next admission does not
 * count the gap again from a later now).
 */
export function endAsCounted(lastEnd: number | undefined, now: number): number | undefined {
  return lastEnd !== undefined && lastEnd - now > END_AHEAD_KEPT_MS ? now : lastEnd;
}

/**
 * P10, P15, P20 under a clock set back: a site's hold (`notBefore`: a Retry-After, the wait before
 * a retry) when its last end was stamped by a clock running ahead (endAsCounted takes that end as
 * now). The hold was stamped by the same clock, from an answer that ended no later than that end
 * (as far as the stamps can tell): it lasts as long past that end as it was written to, counted
 * from now (the end's real time at the latest). So never the days the clock ran ahead, and never
 * shorter than the answer asked from the time it was received: that was no later than now. A hold
 * whose end is taken as written is left as written.
 */
export function holdAsCounted(
  notBefore: number | undefined,
  lastEnd: number | undefined,
  now: number,
): number | undefined {
  if (notBefore === undefined || lastEnd === undefined) return notBefore;
  if (endAsCounted(lastEnd, now) === lastEnd) return notBefore;
  return notBefore - (lastEnd - now);
}

/** The New York calendar date of a rule (as `nor site` and the console show it), not UTC's. */
function dateOf(ms: number): string {
  return formatInZone(ms, SITE_OWNER_ZONE).slice(0, 10);
}

/**
 * Whether an owner's path rule (written as robots.txt writes a path: `*` any run of characters,
 * a final `$` the end of the path, RFC 9309 §2.2.3) leaves alone `path`, the request's path and
 * query in the normal form of `normalisePath`. The robots.txt matcher's own reading, never a
 * second one: `/permits/*feed` leaves `/permits/2026/feed` alone, `/x/feed.rss$` only that
 * path (not `/x/feed.rss?all=1`), and a rule with neither is a prefix, as ever.
 */
export function leavesAlone(rule: string, path: string): boolean {
  return compilePattern(normalisePattern(withoutFragment(rule)))(path);
}

/**
 * A rule without its `#…`: a request's path never holds one (normalisePath drops it), so a rule
 * written with one (`/permits/#list`) means the path before it, as it always did.
 */
function withoutFragment(rule: string): string {
  const hash = rule.indexOf("#");
  return hash === -1 ? rule : rule.slice(0, hash);
}

/**
 * A rule for the whole site: one that leaves every path alone (`/`, `/*`, `/*$`). Such a rule
 * leaves robots.txt itself alone too (nothing at all is asked there). A pattern that matches
 * both `/` and `/robots.txt` can hold no literal text but one leading `/`, so it matches every
 * path.
 */
export function isWholeSiteRule(rule: string): boolean {
  const test = compilePattern(normalisePattern(withoutFragment(rule)));
  return test("/") && test("/robots.txt");
}

/** A request's path and query, as admission reads it (`AdmitInput.path`). */
export function requestPath(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/**
 * The owner's request that leaves alone a request for `path` (its path and query, requestPath),
 * if one does: admit's decision, and the one a record page's status is said by (P26: the
 * directory says a page every way of which is left alone not read, night/left-alone.ts).
 * Read as a robots.txt Disallow (P18): both sides in one percent-encoded normal form, so
 * "/public notices/" or "/bids–rfps/" match the URL's "/public%20notices/…", and `*` and a
 * final `$` mean what they mean there. robots.txt itself (`isRobots`: a robots.txt request) is
 * left alone only by a rule for the whole site ("/", "/*"): its rules still govern the paths
 * not left alone, and there are none then.
 */
export function leftAloneBy<R extends { kind: string; prefix?: string }>(
  rules: readonly R[],
  path: string,
  isRobots = false,
): (R & { kind: "leave-alone"; prefix: string }) | undefined {
  const normal = normalisePath(path);
  // Only /robots.txt itself: a robots.txt request redirected elsewhere (another path, another
  // site) is judged by the path rules there, as any request is.
  const robotsItself = isRobots && normal === "/robots.txt";
  return rules.find(
    (r): r is R & { kind: "leave-alone"; prefix: string } =>
      r.kind === "leave-alone" &&
      r.prefix !== undefined &&
      (robotsItself ? isWholeSiteRule(r.prefix) : leavesAlone(r.prefix, normal)),
  );
}

/**
 * What puts a request's start (`startAt`) past the night, when it is the site's word or its
 * owner's rather than the night's time running out: the site's hold (a Retry-After, or the wait
 * before a retry: `notBefore`) or an owner's gap longer than the checker's own. Said with the
 * time the site may be asked again (New York time, as `nor log` reads times), so that the
 * source's outcome does not read "the night's time limit passed" for a night that had hours
 * left. Nothing for the others (the gap, a Crawl-delay, a retry's own wait at the night's end),
 * nor for a wait of a minute or less, which the night would have waited out had it had the time.
 */
function heldBy(
  a: AdmitInput,
  startAt: number,
  lastEnd: number,
  ownerGap: number,
  /** Why that start is past the night: "after the night's deadline", "more than a day away". */
  past: string,
): { held: string } | Record<string, never> {
  // A wait the checker would sleep through (a minute at most, as a Retry-After it honours,
  // P15) that the deadline comes in the middle of: the night's time ran out, as ever.
  if (!Number.isFinite(startAt) || startAt - a.now <= RETRY_AFTER_MAX_MS) return {};
  const when = formatInZone(startAt, SITE_OWNER_ZONE).slice(0, 16).replace("T", " ");
  if (a.site.notBefore !== undefined && a.site.notBefore >= startAt)
    return {
      held: `${SITE_WAIT} ${when} New York time (a Retry-After, or the wait before a retry), ${past}`,
    };
  const rule = a.rules.find((r) => r.kind === "gap" && r.gapMs === ownerGap);
  if (rule?.kind === "gap" && ownerGap > a.gapMs && earliestAfter(lastEnd, ownerGap) >= startAt)
    return {
      held: `${OWNER_PACE} ${gapWords(ownerGap)} between requests (${dateOf(rule.at)}: ${rule.reason}): its next request may start at ${when} New York time, ${past}`,
    };
  return {};
}

/** An owner's gap in words: "24 h", "90 min", "1.5 h", "45 s". */
export function gapWords(ms: number): string {
  const unit = (n: number, u: string) => `${Number(n.toFixed(2))} ${u}`;
  if (ms >= 3_600_000) return unit(ms / 3_600_000, "h");
  if (ms >= 60_000) return unit(ms / 60_000, "min");
  return unit(ms / 1000, "s");
}

export function ownerGapMs(rules: readonly OwnerRule[]): number {
  let gap = 0;
  for (const r of rules) if (r.kind === "gap") gap = Math.max(gap, r.gapMs);
  return gap;
}

export function admit(a: AdmitInput): Admission {
  const notRead = a.rules.find((r) => r.kind === "not-read");
  if (notRead) {
    return {
      kind: "closed",
      reason: `${OWNERS_REQUEST} not to be read (${dateOf(notRead.at)}: ${notRead.reason})`,
    };
  }
  if (a.site.closed?.night === a.night) return { kind: "closed", reason: a.site.closed.reason };
  const alone = leftAloneBy(a.rules, a.path, a.isRobots);
  if (alone !== undefined) {
    return {
      kind: "left-alone",
      reason: `${OWNERS_REQUEST} for ${alone.prefix} to be left alone (${dateOf(alone.at)}: ${alone.reason})`,
    };
  }
  const prior = a.prior.filter((p) => p.ownRefusal !== true);
  if (a.replayAllowed && prior.some((p) => p.final)) return { kind: "answered" };
  // A site down tonight (its 5xx outlasted a request's retries) is asked nothing more tonight
  // for any other source; an answer already stored is still replayed above (nothing is sent for
  // it). The source whose request found it down may still try its next way in (P4: an api that
  // answers 500 while the page for people works is a broken endpoint, not a site down).
  // A Retry-After that outlasts the night says it better (below: "the site asked to wait until
  // …"): the request is not sent either way.
  const down = a.site.down;
  const held = a.site.notBefore;
  const outlasts =
    held !== undefined &&
    (!(held - a.now <= LONGEST_WAIT_MS) || (a.deadline !== undefined && held > a.deadline));
  if (
    down?.night === a.night &&
    (down.source === undefined || down.source !== a.source) &&
    !outlasts
  )
    return { kind: "down", reason: down.reason };
  const tries = prior.filter(isTry);
  if (tries.some((p) => p.retryAt !== undefined && p.retryAt >= LATEST_HOLD_MS))
    return { kind: "done-tonight" };
  // P15 as the site sees it: one request is sent at most three times a night (twice more).
  // An attempt the checker's own death cut short was sent and cut off like a dropped
  // connection: it counts, so a checker that keeps dying does not ask the same page again and
  // again. One never sent does not.
  const crashes = prior.filter((p) => p.interrupted && !isTry(p) && p.notSent !== true).length;
  // An answer received in full that cannot be replayed (its copy gone, or kept in another
  // machine's data directory) is asked again, but it was a send the site saw: it counts too, so
  // a request answered on its third send is never sent a fourth time (P15, P8).
  const answered = a.replayAllowed ? 0 : prior.filter((p) => p.final).length;
  // P21 "closed on every attempt" is the site's doing only: a send the checker cut short is not,
  // and one answered in full was not closed.
  const priorAllClosed = crashes === 0 && answered === 0 && tries.every((p) => p.closedEarly);
  const sends = tries.length + crashes + answered;
  if (sends > MAX_RETRIES) return { kind: "exhausted", priorAllClosed };

  let recovered: string | undefined;
  let lastEnd =
    (a.endAheadIsNow === false ? a.site.lastEnd : endAsCounted(a.site.lastEnd, a.now)) ??
    Number.NEGATIVE_INFINITY;
  const lease = a.site.lease;
  if (lease && lease.holder === a.holder) {
    // Our own lease at admission: a process queues its requests to a site one by one, so
    // this is a request whose completion failed (the archive or the store threw). Its end
    // was never written: the gap counts from now (P10), its row is marked interrupted.
    recovered = lease.holder;
    lastEnd = Math.max(lastEnd, a.now);
  } else if (lease) {
    if (!a.holderDead(lease)) {
      // A live holder past its lease (frozen mid-request, its liveness lock held on PostgreSQL:
      // store/holder-liveness.ts) may hold the site for hours: at the night's deadline (no start
      // possible before it, the gap counted after its end, which is not before now) nothing more
      // is waited for tonight (P13), or the night's request polled it past its end.
      if (lease.until <= a.now && a.deadline !== undefined && a.now + a.gapMs > a.deadline)
        return {
          kind: "not-tonight",
          reason: `the site is still in flight for another process (${lease.holder}) past its lease at the night's deadline`,
        };
      // Another process is talking to this site right now (P9): wait for it, asking again
      // every 250 ms, or when its lease runs out if sooner. A live holder past its lease (a
      // slow body on this host) is still polled every 250 ms, never in a tight loop.
      const until = lease.until > a.now ? Math.min(lease.until, a.now + 250) : a.now + 250;
      return { kind: "wait", until, why: "in flight" };
    }
    // Its holder died mid-request: the connection ended at the latest now, so the gap counts
    // from now (P10), and the row it left is marked interrupted by the journal.
    recovered = lease.holder;
    lastEnd = Math.max(lastEnd, a.now);
  }
  const ownerGap = ownerGapMs(a.rules);
  const gap = Math.max(a.gapMs, ownerGap);
  const retryAt = tries.reduce((m, p) => Math.max(m, p.retryAt ?? m), Number.NEGATIVE_INFINITY);
  const startAt = Math.max(
    earliestAfter(lastEnd, gap),
    a.site.notBefore ?? Number.NEGATIVE_INFINITY,
    retryAt,
    // P13: a site idle since before the deadline still may not start after it.
    a.now,
  );
  // Math.max passes NaN through: an unreadable wait is "not tonight", never "now".
  if (!(startAt - a.now <= LONGEST_WAIT_MS)) {
    return {
      kind: "not-tonight",
      reason: "the next allowed start is more than a day away",
      ...heldBy(
        a,
        startAt,
        lastEnd,
        ownerGap,
        a.deadline !== undefined && startAt > a.deadline
          ? "after the night's deadline"
          : "more than a day away",
      ),
    };
  }
  if (a.deadline !== undefined && startAt > a.deadline) {
    return {
      kind: "not-tonight",
      reason: "the next allowed start is after the night's deadline",
      ...heldBy(a, startAt, lastEnd, ownerGap, "after the night's deadline"),
    };
  }
  // Admitted ahead, the request is still judged by its planned start (P13 above) and sent at
  // it; asked earlier than that, it comes back `ahead` before the start.
  const asked = a.aheadMs ?? 0;
  const ahead = Number.isFinite(asked) ? Math.min(Math.max(0, asked), MAX_AHEAD_MS) : 0;
  if (startAt - a.now > ahead) {
    return {
      kind: "wait",
      until: startAt - ahead,
      why: "gap",
      ...(recovered !== undefined ? { recovered } : {}),
    };
  }
  return {
    kind: "go",
    // The send's number tonight, as the site saw them (its third is its last: P15, and a 429
    // on it is the site's no, P21).
    attempt: sends + 1,
    priorAllClosed,
    startedAt: startAt,
    ...(recovered !== undefined ? { recovered } : {}),
  };
}

/**
 * The time of a decision: a fixed instant (tests), or the clock, read inside the transaction
 * at the moment of deciding, so a wait for the write lock (or for a group commit's batch)
 * never makes the decision on an earlier time than the one it is taken at.
 */
export type DecisionTime = number | (() => number);

export function timeOf(now: DecisionTime): number {
  return typeof now === "function" ? now() : now;
}

/** How every refusal by an owner's request begins: the operator's decision, not the site's no. */
export const OWNERS_REQUEST = "the site's owner asked";

/**
 * How the reason of a source not asked because its site was down tonight begins (the project's
 * stricter rule beside P15): never a no (P21), and never the night's time running out.
 */
export const SITE_DOWN = "the site was down tonight";

/**
 * The reason a site is down for the rest of the night: the request at `url` ended in HTTP
 * `status` (a 5xx) after its retries were used up, or with a Retry-After that asks for more
 * than a night waits (`why`, retry.ts RetryDecision's reason). Its other sources read it.
 */
export function siteDownReason(status: number, why: string, url: string): string {
  const how =
    why === "retry-after-too-long"
      ? `with a Retry-After over ${RETRY_AFTER_MAX_MS / 1000} s`
      : why === "retry-after-unreadable"
        ? "with a Retry-After that could not be read"
        : "after its retries";
  return `${SITE_DOWN}: it answered HTTP ${status} ${how} (${url}); not asked again tonight`;
}

/**
 * Whether a 5xx that ends a request tonight leaves its site down for the night: a 502, 503 or
 * 504 (or a CDN's 520 to 526, 530) only (a gateway with no backend behind it, a site in
 * maintenance, a backend that does not answer), which say the site's front is down for every
 * page. A 500 (or 501, 505, …) says one
 * page's script failed: on a host shared by many governments (a vendor's registrable domain is
 * one site, P9) one government's broken page would otherwise leave all the others unasked.
 */
export function downStatus(status: number): boolean {
  return (
    status === 502 ||
    status === 503 ||
    status === 504 ||
    // A CDN's word that the origin behind it is down or unreachable (Cloudflare's 520 to 526,
    // and 530: the origin's name does not resolve).
    (status >= 520 && status <= 526) ||
    status === 530
  );
}

/**
 * What a request that ended tonight in HTTP `status` (`why`: its retry decision's reason) says
 * of its site: down for the rest of the night (`downSite`, siteDownReason) when the status is
 * one that says the site's front is down (downStatus), else nothing. Spread into a completion.
 */
export function siteDownOf(status: number, why: string, url: string): { downSite?: string } {
  return downStatus(status) ? { downSite: siteDownReason(status, why, url) } : {};
}

/** Whether a source's reason says its site was down tonight (siteDownReason). */
export function isSiteDown(reason: string | null | undefined): boolean {
  return reason?.startsWith(SITE_DOWN) ?? false;
}

/** The words a source's outcome takes when the site's own wait puts its request past the night. */
export const SITE_WAIT = "the site asked to wait until";

/** The words a source's outcome takes when its owner's slower pace puts its request past the night. */
export const OWNER_PACE = `${OWNERS_REQUEST} for at least`;

export function isOwnersRequest(reason: string | undefined): boolean {
  return reason?.startsWith(OWNERS_REQUEST) ?? false;
}

/**
 * P10: the earliest start after a request that ended at `lastEnd` (ms), the gap `gapMs` later.
 * Times are whole milliseconds (a clock read floors them): an end stamped T may have come at
 * T + 0.9 ms, so one more millisecond keeps the gap on the wire at or over the floor.
 */
export function earliestAfter(lastEnd: number, gapMs: number): number {
  return lastEnd + gapMs + 1;
}
