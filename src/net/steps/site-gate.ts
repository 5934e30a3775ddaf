import type { Clock } from "../../clock.js";
import { earliestAfter, MAX_AHEAD_MS, NOT_SENT } from "../../policy/admission.js";
import { BODY_TOTAL_MS, HEADERS_TIMEOUT_MS, REQUEST_LEASE_MS } from "../../policy/constants.js";
import { originOf, siteOf } from "../../policy/site.js";
import { type JournalPort, requestKey } from "../journal.js";
import { final, heldNow, NotHeld, type Reply, type Step } from "../pipeline.js";

/**
 * P9 inside one process: requests to one site queue here, one after another, so a process
 * never competes with itself for its site's lease. Across processes the journal decides
 * (admission); this queue only saves them from polling each other.
 */
export class SiteQueue {
  readonly #tails = new Map<string, Promise<void>>();
  /**
   * When this process last ended a request to each site: with the next request's gap, the
   * earliest it can go. Only a hint that saves asking the journal just to hear "wait"; the
   * journal still decides, and says "wait" again when another process went since.
   */
  readonly #lastEnd = new Map<string, number>();
  /** How long the last admissions took, from asking the journal to its answer (ms). */
  readonly #took: number[] = [];

  lastEnd(site: string): number | undefined {
    return this.#lastEnd.get(site);
  }

  ended(site: string, at: number): void {
    this.#lastEnd.set(site, Math.max(at, this.#lastEnd.get(site) ?? at));
  }

  admissionTook(ms: number): void {
    this.#took.push(Math.max(0, ms));
    if (this.#took.length > AHEAD_WINDOW) this.#took.shift();
  }

  /**
   * How long before its earliest start a request asks the journal: twice the slowest of the
   * last admissions (their write lock, group commit and fsync: milliseconds on an idle
   * machine, hundreds on a loaded one), within MIN_ADMIT_AHEAD_MS and MAX_AHEAD_MS.
   */
  aheadMs(): number {
    let slowest = 0;
    for (const t of this.#took) slowest = Math.max(slowest, t);
    return Math.min(MAX_AHEAD_MS, Math.max(MIN_ADMIT_AHEAD_MS, Math.ceil(2 * slowest)));
  }

  async run<T>(site: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(site) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(site, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(site) === tail) this.#tails.delete(site);
    }
  }
}

export interface SiteGateDeps {
  clock: Clock;
  journal: JournalPort;
  /** This fetcher's name in the journal's leases. */
  holder: string;
  queue: SiteQueue;
  night(): string;
  /** P13: no request starts after it. */
  deadline?: number;
  /** P10: the floor, 2 s (options.ts: shorter only towards loopback in tests). */
  floorGap(url: URL): number;
  /** P10: the origin's robots.txt Crawl-delay (robots gate), 0 when none. */
  crawlDelayMs(url: string): Promise<number>;
}

/**
 * Why a request is not sent again tonight when its three sends are used (P15), those the
 * checker's own stop or crash cut short included.
 */
export const SENDS_USED_UP =
  "its sends tonight are used up (at most three of one request, those cut short by the checker's own stop or crash included: P15)";

/**
 * How late after its planned start an admitted request may still be sent (P9): the lease it took
 * (REQUEST_LEASE_MS) less the longest it may then last, headers and whole body (P14).
 */
export const LATEST_SEND_MS = REQUEST_LEASE_MS - HEADERS_TIMEOUT_MS - BODY_TOTAL_MS;

/** The longest wait the hint sleeps without asking the journal first. */
const HINT_MAX_MS = 10 * 60_000;

/**
 * Admit ahead, send on time: the journal is asked a little before the earliest start the gap
 * allows (SiteQueue.aheadMs: at least this, more when admissions have been slow), so its
 * transaction (the write lock, a group commit's batch, an fsync) is done by then, and the
 * request leaves at that start, not that much after it. The start is decided from the durable
 * state as ever (policy/admission.ts), the row says when it was planned, and nothing is sent
 * before it.
 */
export const MIN_ADMIT_AHEAD_MS = 50;

/** The admissions SiteQueue.aheadMs looks back on. */
const AHEAD_WINDOW = 32;

/**
 * Sleeps until the clock reads `at` or later (a timer may fire a millisecond early). Whether
 * it got there: a clock that keeps waking early is given up on after a bound, and the caller
 * then does not send (politeness never fails open).
 */
async function sleepUntil(clock: Clock, at: number, signal?: AbortSignal): Promise<boolean> {
  for (let i = 0; i < 1_000 && clock.now() < at; i++) await clock.sleep(at - clock.now(), signal);
  return clock.now() >= at;
}

/** Admissions that said "wait" before one said something else: a bound, never a spin. */
const MAX_WAITS = 100_000;

/**
 * P9, P10, P13 (and P15's waits, P21's closed sites, the owners' requests): whether this
 * attempt may be sent now is read from the journal at the moment of sending, in one write
 * transaction, and decided by policy/admission.ts: the site's last end plus the gap (the
 * floor or the Crawl-delay, whichever is longer; an owner's longer gap is added there), the
 * lease of a request in flight, a no tonight, a Retry-After, the deadline, the attempts used.
 * On "go" the same transaction writes the attempt's row and takes the site's lease, so the
 * row is durable before the first byte (P27); the time is read inside it. On "wait" it
 * sleeps on the clock and asks again. Tonight's answer already stored is replayed (P8).
 */
export const siteGate =
  (deps: SiteGateDeps): Step =>
  (next) =>
  async (call) => {
    const site = siteOf(call.url);
    const night = deps.night();
    // A hop back to an address of its own chain with a cookie (a cookie check: the site sets
    // one and sends the visitor back, P5, P22; a check in two steps comes back twice) asks
    // another question than the ask before it did, keyed with the cookie it carries. The
    // chain's five hops bound them as they bound any redirects (P19): a site that sets a new
    // cookie at every turn costs a chain's six requests, no more. Any other request is the
    // same question whatever cookie goes with it, answered from tonight's answer (P8).
    const back = call.purpose === "redirect" && call.chain?.includes(call.url) === true;
    const cookie = back ? call.headers?.["cookie"] : undefined;
    const key = requestKey({
      method: call.method,
      url: call.url,
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(cookie !== undefined ? { cookie } : {}),
    });
    // P10: the floor or the origin's Crawl-delay, whichever is longer; read again before each
    // admission (a robots.txt another process stored while this request waited counts).
    const floor = deps.floorGap(new URL(call.url));
    const gapNow = async () => Math.max(floor, await deps.crawlDelayMs(call.url));
    let gapMs = await gapNow();
    const intent = {
      night,
      key,
      method: call.method,
      url: call.url,
      site,
      origin: originOf(call.url),
      ...(call.source !== undefined ? { source: call.source } : {}),
      purpose: call.purpose,
      ...(call.validatorsSent ? { validatorsSent: call.validatorsSent } : {}),
      ...(deps.deadline !== undefined ? { deadline: deps.deadline } : {}),
    };
    return deps.queue.run(site, async () => {
      // The gap after this process's own last request to the site, slept without a round trip
      // up to `ahead` before its end. A long wait, or one past the deadline, is left to the
      // journal (it may say not tonight).
      const lastEnd = deps.queue.lastEnd(site);
      const hint = lastEnd === undefined ? undefined : earliestAfter(lastEnd, gapMs);
      const now = deps.clock.now();
      const ahead = deps.queue.aheadMs();
      if (
        hint !== undefined &&
        hint - ahead > now &&
        hint - now <= HINT_MAX_MS &&
        (deps.deadline === undefined || hint <= deps.deadline)
      ) {
        await deps.clock.sleep(hint - ahead - now, call.signal);
        gapMs = await gapNow();
      }
      let replayAllowed = true;
      for (let waits = 0; waits < MAX_WAITS; waits++) {
        if (waits > 0) gapMs = await gapNow();
        // Stopped (the command's stop, a caller's abort): nothing more is admitted, so no row
        // is written for a request that will never leave.
        call.signal?.throwIfAborted();
        // P16: the robots.txt copy it was allowed on stopped serving meanwhile (a wait for the
        // gap, a Crawl-delay, a retry's): nothing admitted on it; the robots gate decides again.
        if (call.robotsServesUntil !== undefined && deps.clock.now() >= call.robotsServesUntil)
          return { kind: "robots-stale" };
        // The caller's work (a night's lane) taken over by another process while this one was
        // frozen (in a wait before a retry, the gap, a Crawl-delay): nothing more is admitted for
        // it, so the new holder alone asks what is left (P8, P9).
        const held = heldNow(call);
        if (held !== true && !(await held)) throw new NotHeld(call.url);
        const asked = deps.clock.now();
        const a = await deps.journal.admit(
          { ...intent, gapMs, replayAllowed, aheadMs: deps.queue.aheadMs() },
          deps.holder,
          () => deps.clock.now(),
        );
        deps.queue.admissionTook(deps.clock.now() - asked);
        switch (a.kind) {
          case "wait":
            await deps.clock.sleep(Math.max(0, a.until - deps.clock.now()), call.signal);
            continue;
          case "answered": {
            const stored = await deps.journal.answer(night, key);
            const reply = stored
              ? await next({ ...call, ticket: { kind: "replay", night, stored } })
              : undefined;
            // The stored copy is gone: ask again.
            if (!reply || reply.kind === "unreplayable") {
              replayAllowed = false;
              continue;
            }
            return reply;
          }
          case "closed":
            return final({ kind: "site-closed", url: call.url, reason: a.reason });
          case "down":
            return final({ kind: "site-down", url: call.url, reason: a.reason });
          case "left-alone":
            return final({ kind: "disallowed", url: call.url, reason: a.reason });
          case "not-tonight":
            return final({
              kind: "deadline",
              url: call.url,
              ...(a.held !== undefined ? { reason: a.held } : {}),
            });
          case "done-tonight":
            // Its head's word (robots.txt: the origin unreachable tonight, P20).
            return final({
              kind: "error",
              url: call.url,
              status: null,
              reason: "not asked again tonight: an earlier answer's head said so (429 or 5xx)",
              held: true,
            });
          case "exhausted":
            return final({
              kind: "error",
              url: call.url,
              status: null,
              reason: SENDS_USED_UP,
              // Sent three times tonight already, none answered in full (P7: no answer).
              noAnswer: true,
            });
          case "go": {
            // Admitted ahead: the row is durable and the lease held; the request leaves at its
            // planned start, never before (the gap was counted to it). Stopped meanwhile, it
            // is not sent, and its row says so (the lease let go, the gap counted from now).
            let onTime: boolean;
            try {
              onTime = await sleepUntil(deps.clock, a.startedAt, call.signal);
            } catch (err) {
              await notSent(deps, a, "interrupted", `${NOT_SENT} stopped before its planned start`);
              throw err;
            }
            if (!onTime) {
              const reason = `${NOT_SENT} the clock never reached its planned start`;
              await notSent(deps, a, "interrupted", reason);
              return final({ kind: "error", url: call.url, status: null, reason, notSent: true });
            }
            // The hold asked again at sending: asked before the admission only, a worker frozen
            // between that question and the admission's transaction (or in the wait for its
            // start) would send for a lane another process has taken over meanwhile (P8, P9).
            // Within the lane's lease this reads the clock alone: no statement. Past it, the
            // lane is claimed again; a claim that fails (the store gone) leaves no row in
            // flight holding the site: not sent, and the failure is the caller's.
            let held = true;
            try {
              const h = heldNow(call);
              held = h === true || (await h);
            } catch (err) {
              await notSent(
                deps,
                a,
                "interrupted",
                `${NOT_SENT} its lane's hold could not be read`,
              ).catch(() => {});
              throw err;
            }
            if (!held) {
              await notSent(
                deps,
                a,
                "interrupted",
                `${NOT_SENT} ${call.notHeldWhy?.() ?? "its lane is held by another process now"}`,
              );
              throw new NotHeld(call.url);
            }
            // An owner's rule set or cleared since the decision (`nor site` in another process,
            // while this one was admitted ahead), or the site closed by a no (P21) or found down
            // (P15) since, by another process's late answer: not sent, and decided again under
            // it, so a rule holds from the next request on (P10's longer gap, P18's paths, P26). Read
            // before the deadline is judged, so the time this read takes cannot carry a
            // request past the deadline (P13).
            if ((await deps.journal.rulesNow(site)) !== a.rules) {
              await notSent(
                deps,
                a,
                "interrupted",
                `${NOT_SENT} the site's owner rules or its state tonight (closed, down) changed after it was admitted`,
              );
              continue;
            }
            // P16 at the moment of sending: the robots.txt copy it was allowed on stopped serving
            // while it was admitted ahead or waited for its start: not sent, its row says so,
            // and the robots gate decides again on robots.txt read again.
            if (
              call.robotsServesUntil !== undefined &&
              deps.clock.now() >= call.robotsServesUntil
            ) {
              await notSent(
                deps,
                a,
                "interrupted",
                `${NOT_SENT} the robots.txt copy it was allowed on stopped serving before it left`,
              );
              return { kind: "robots-stale" };
            }
            // P13 at the moment of sending: the row became durable after the decision (a
            // group commit can take a few milliseconds); past the deadline by then, the
            // request is not sent and its row says so.
            if (deps.deadline !== undefined && deps.clock.now() > deps.deadline) {
              await notSent(
                deps,
                a,
                "deadline",
                `${NOT_SENT} the night's deadline passed while its row was written`,
              );
              return final({ kind: "deadline", url: call.url });
            }
            // P9: the site's lease runs REQUEST_LEASE_MS from the planned start, and only a
            // request begun in the first LATEST_SEND_MS of it ends, by its own limits (P14),
            // before another process may take the site. One held up past that (a process paused
            // or starved between its admission and now) is not sent: another may hold the site.
            if (deps.clock.now() > a.startedAt + LATEST_SEND_MS) {
              await notSent(
                deps,
                a,
                "interrupted",
                `${NOT_SENT} held up past its lease on the site (another process may hold it now)`,
              );
              continue;
            }
            return sent(
              deps,
              site,
              next({
                ...call,
                ticket: {
                  kind: "send",
                  id: a.id,
                  night,
                  attempt: a.attempt,
                  priorAllClosed: a.priorAllClosed,
                  startedAt: a.startedAt,
                },
              }),
            );
          }
        }
      }
      return final({ kind: "deadline", url: call.url });
    });
  };

/**
 * Completes the row of an admitted request that was not sent (nothing went out: 0 bytes). Its
 * end is never before its planned start (the row's `started_at`): a log row never ends before
 * it starts, and the site's gap counts from the planned start at the earliest (P10, P27).
 */
async function notSent(
  deps: SiteGateDeps,
  a: { id: string; startedAt: number },
  outcome: string,
  failure: string,
): Promise<void> {
  // A row another process took over meanwhile keeps its word (JournalPort.complete).
  await deps.journal.complete(a.id, deps.holder, {
    endedAt: Math.max(deps.clock.now(), a.startedAt),
    status: null,
    outcome,
    failure,
    bytes: 0,
    final: false,
    closedEarly: false,
  });
}

/** Notes when the request ended (its answer's end, or now), for the next one's hint. */
async function sent(deps: SiteGateDeps, site: string, reply: Promise<Reply>): Promise<Reply> {
  try {
    const r = await reply;
    const got = "got" in r ? r.got : undefined;
    deps.queue.ended(site, got?.answer.endedAt ?? deps.clock.now());
    return r;
  } catch (err) {
    deps.queue.ended(site, deps.clock.now());
    throw err;
  }
}
