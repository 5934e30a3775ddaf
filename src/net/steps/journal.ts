import type { Clock } from "../../clock.js";
import { NorError } from "../../errors.js";
import { RETRY_AFTER_MAX_MS } from "../../policy/constants.js";
import { LATEST_HOLD_MS, readRetryAfter, waitAfterCut } from "../../policy/retry.js";
import { siteOf } from "../../policy/site.js";
import type { Completion, JournalPort, StoredAnswer, StoredAttempt } from "../journal.js";
import {
  type AttemptResult,
  type Call,
  CutOff,
  type Got,
  heldNow,
  NotHeld,
  NotKept,
  type Step,
} from "../pipeline.js";
import type { Validators } from "../types.js";
import type { ClosedSites } from "./closed-site.js";

export interface JournalDeps {
  clock: Clock;
  journal: JournalPort;
  holder: string;
  closed: ClosedSites;
}

/**
 * P27, written ahead: the site gate wrote this attempt's row before anything was sent; here
 * it is completed once the answer has been read, judged (classify) and kept (archive): end,
 * status, the log's word, bytes, validators received, a no's evidence, the answer to replay
 * (P8), the retry wait (P15), a no that closes the site (P21), a Retry-After that holds it
 * (RFC 9110 §10.2.3). The lease is let go in the same transaction. When a step below throws
 * (a bug, a full disk), the row still records its end, so the site's gap counts from it (P10),
 * and then the error goes up. A replayed answer has no row of its own.
 */
export const journal =
  (deps: JournalDeps): Step =>
  (next) =>
  async (call) => {
    const t = call.ticket;
    if (t?.kind !== "send") return next(call);
    let reply: Awaited<ReturnType<typeof next>>;
    try {
      reply = await next(call);
    } catch (err) {
      // Cut off by the caller's stop mid-body: what the site sent is kept on the row.
      const sent = err instanceof CutOff ? { status: err.status, bytes: err.bytes } : undefined;
      await interrupted(
        deps,
        t,
        err,
        { endedAt: deps.clock.now(), status: sent?.status ?? null, bytes: sent?.bytes ?? 0 },
        call,
      );
      throw err;
    }
    const got = "got" in reply ? reply.got : undefined;
    if (!got?.judged || got.failed !== undefined) {
      const err =
        got?.failed ?? new NorError("E_INTERNAL", `attempt ended on "${reply.kind}", unjudged`);
      const end = got ? endOf(got.answer) : { endedAt: deps.clock.now(), status: null, bytes: 0 };
      await interrupted(deps, t, err, end, call);
      throw err;
    }
    // A no is the site's, whoever's row it is now (P21: the stricter side), and holds in this
    // process before its completion is written: a completion that fails (the store's connection
    // lost past its tries, PostgreSQL restarting) goes up as this source's error while the lane
    // goes on, and its next request to the site must not leave.
    if (got.judged.closeSite !== undefined) {
      deps.closed.close(t.night, siteOf(call.url), got.judged.closeSite);
    }
    const written = await deps.journal.complete(
      t.id,
      deps.holder,
      completion(call, t, got, got.judged),
    );
    if (got.indexed !== undefined) {
      // The copy's index row was queued before the completion, so it is committed by now or
      // failed: a failure is the archive's (the caller stops on it, as on a full disk). The
      // row's stored answer then says archived though the index has no copy: a replay finds
      // none and asks again (archive step).
      try {
        await got.indexed;
      } catch (err) {
        throw new NotKept(err);
      }
    }
    // The row was taken over while this process was frozen with the request on the wire
    // (another marked it interrupted after taking the lane): it stays interrupted, with what the
    // site answered written on it as late, and the site keeps its end, hold and no. When the lane is
    // another's too, nothing of this answer is recorded by this process either: the lane's new
    // holder asks and records the page (P8, P9, P27).
    if (!written) {
      const mine = heldNow(call);
      if (mine !== true && !(await mine))
        throw new NotHeld(call.url, "answered too late to record");
    }
    return reply;
  };

type SendTicket = Extract<NonNullable<Call["ticket"]>, { kind: "send" }>;

function completion(
  call: Call,
  t: SendTicket,
  got: Got,
  j: NonNullable<Got["judged"]>,
): Completion {
  const r = got.answer;
  // P13, P15: the wait before a retry holds the whole site, as a Retry-After does: nothing else
  // goes to it meanwhile, and a retry that the deadline cuts off leaves the site alone for the
  // rest of the night (its other pages are not read sooner than the wait, to fit them in).
  const retryAt = j.retryWaitMs !== undefined ? r.endedAt + j.retryWaitMs : undefined;
  const asked = r.kind === "response" ? siteHold(r) : undefined;
  const hold =
    asked !== undefined && retryAt !== undefined ? Math.max(asked, retryAt) : (asked ?? retryAt);
  // Built field by field (one object of a steady shape, not a dozen spreads a request); the
  // stored answer's fields in the order it has always been written in (it is kept as JSON).
  const c: Completion = {
    ...endOf(r),
    outcome: j.label,
    final: j.final,
    closedEarly: j.closedEarly,
  };
  const failure = failureOf(r) ?? j.failure;
  if (failure !== undefined) c.failure = failure;
  const v = r.kind === "response" ? received(r.headers) : undefined;
  if (v !== undefined) c.validatorsReceived = v;
  if (j.evidence) c.evidence = j.evidence;
  if (retryAt !== undefined) c.retryAt = retryAt;
  if (j.final) {
    const answer = stored(r, got.archived) as StoredAnswer;
    // A failure's stored answer names its source too, as it always has.
    if (call.source !== undefined) (answer as { source?: string }).source = call.source;
    if (answer.kind === "response" && call.validatorsSent)
      answer.validatorsSent = call.validatorsSent;
    answer.attempt = t.attempt;
    answer.priorAllClosed = t.priorAllClosed;
    // P16, P11: a robots.txt read's body (a 2xx's: any other is replayed without it) goes with
    // its answer into the shared store, so another machine (its archive a directory of its own)
    // replays it instead of asking robots.txt again tonight. One over the read limit too: its
    // first bytes (ROBOTS_READ_LIMIT) are what is parsed (P17), and the archive keeps none.
    if (
      answer.kind === "response" &&
      call.robotsFor !== undefined &&
      r.kind === "response" &&
      r.status >= 200 &&
      r.status < 300 &&
      (r.read.kind === "complete" || r.read.kind === "too-large")
    ) {
      // Its bytes as base64, not text: decoded where robots.txt is read (P17, robots/decode.ts).
      const bytes = Buffer.from(r.read.body);
      answer.robotsBody = bytes.toString("base64");
    }
    c.answer = answer;
  }
  if (j.closeSite !== undefined) c.closeSite = j.closeSite;
  if (j.downSite !== undefined) c.downSite = j.downSite;
  if (hold !== undefined) c.siteNotBefore = hold;
  return c;
}

function endOf(r: AttemptResult) {
  return {
    endedAt: r.endedAt,
    status: r.kind === "response" ? r.status : null,
    bytes: r.kind === "response" ? r.read.bytes : 0,
  };
}

/** Completes the row of a send that threw (`interrupted`, with its end). */
async function interrupted(
  deps: JournalDeps,
  t: SendTicket,
  err: unknown,
  end: { endedAt: number; status: number | null; bytes: number },
  call: Call,
): Promise<void> {
  // Cut off by the caller's stop (the command's SIGTERM), not a bug of ours.
  const stopped = call.signal?.aborted === true;
  const c: Completion = {
    ...end,
    outcome: "interrupted",
    failure: `${stopped ? "stopped" : "internal"}: ${err instanceof Error ? err.message : String(err)}`,
    final: false,
    closedEarly: false,
  };
  if (stopped) {
    // P15: the site saw a connection closed before a full response; the next send (a restart's,
    // at once) waits as after one it closed, 5 s then 20 s, and holds the site meanwhile. A wait
    // its head asked for stays the one kept. Its last send allowed waits for nothing.
    const wait = waitAfterCut(t.attempt);
    if (wait !== undefined) {
      c.retryAtIfNone = end.endedAt + wait;
      c.siteNotBefore = end.endedAt + wait;
    }
  }
  await deps.journal.complete(t.id, deps.holder, c);
}

/**
 * RFC 9110 §10.2.3: a Retry-After on a 429 or 5xx holds the whole site until then (P15); on a
 * 3xx (a 304 aside: nothing follows it) it is the least wait before the redirected request,
 * and the site that asked is held too (the redirects step makes a hop to another site wait
 * as long).
 */
function siteHold(r: AttemptResult & { kind: "response" }): number | undefined {
  return retryAfterHold(r.status, r.headers, r.endedAt);
}

/** The site's hold a Retry-After on this status asks for, counted from `at` (siteHold). */
export function retryAfterHold(
  status: number,
  headers: Record<string, string>,
  at: number,
): number | undefined {
  const redirection = status >= 300 && status < 400 && status !== 304;
  if (status !== 429 && status < 500 && !redirection) return undefined;
  const asked = readRetryAfter(headers["retry-after"], at, headers["date"]);
  if (asked.kind === "absent") return undefined;
  // Unreadable: how long the site asked for is unknown, so it gets the longest wait the
  // checker ever keeps (the stricter side), never less than a plain 503's 5 s.
  const ms = asked.kind === "delay" ? asked.ms : RETRY_AFTER_MAX_MS;
  // Any run of digits is delta-seconds: a hold past what the store can write is kept as the
  // latest it can (admission reads it as "not tonight", like any hold over a day).
  return Math.min(at + ms, LATEST_HOLD_MS);
}

/** The answer as stored for replay: everything but the body, which the archive holds (P8). */
function stored(r: AttemptResult, archived: boolean): StoredAttempt {
  if (r.kind === "failure") {
    return {
      kind: "failure",
      failure: r.failure,
      message: r.message,
      ...(r.address !== undefined ? { address: r.address } : {}),
      startedAt: r.startedAt,
      endedAt: r.endedAt,
    };
  }
  return {
    kind: "response",
    status: r.status,
    headers: r.headers,
    ...(r.setCookies.length > 0 ? { setCookies: r.setCookies } : {}),
    read: r.read.kind,
    bytes: r.read.bytes,
    ...(r.read.kind === "failed" ? { failure: r.read.failure, message: r.read.message } : {}),
    ...(r.read.kind === "bad-encoding" ? { message: r.read.message } : {}),
    ...(r.severalLocations ? { severalLocations: true as const } : {}),
    archived,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
  };
}

function failureOf(r: AttemptResult): string | undefined {
  if (r.kind === "failure") return `${r.failure}: ${r.message}`;
  if (r.read.kind === "failed") return `${r.read.failure}: ${r.read.message}`;
  if (r.read.kind === "bad-encoding") return `encoding: ${r.read.message}`;
  return undefined;
}

function received(h: Record<string, string>): Validators | undefined {
  const v: Validators = {};
  if (h["etag"]) v.etag = h["etag"];
  if (h["last-modified"]) v.lastModified = h["last-modified"];
  return v.etag || v.lastModified ? v : undefined;
}
