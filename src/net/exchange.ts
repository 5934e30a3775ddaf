import type { Clock } from "../clock.js";
import { nightOf } from "../policy/night-date.js";
import { parseRetryAfter } from "../policy/retry.js";
import { originOf, siteOf } from "../policy/site.js";
import { type BodyRead, readBody } from "./body-reader.js";
import { type JournalPort, requestKey, type StoredAnswer, type StoredAttempt } from "./journal.js";
import type { SiteQueue } from "./site-gate.js";
import type {
  ArchivePort,
  Method,
  Purpose,
  RefusalEvidence,
  Transport,
  TransportFailure,
  Validators,
} from "./types.js";

/** What one attempt came to, before the pipeline decides what it means. */
export type AttemptResult =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string>;
      setCookies: string[];
      read: BodyRead;
      startedAt: number;
      endedAt: number;
    }
  | {
      kind: "failure";
      failure: TransportFailure;
      message: string;
      address?: string;
      startedAt: number;
      endedAt: number;
    };

/** What the pipeline makes of an attempt, written to its journal row. */
export interface Judged {
  outcome: string;
  evidence?: RefusalEvidence;
  /** The answer is complete: replayed from the journal, never asked again tonight (P8). */
  final: boolean;
  closedEarly: boolean;
  /** P15: the wait before the next attempt at this request. */
  retryWaitMs?: number;
  /** P21: the site of this request said no: closed for the night (the reason). */
  closeSite?: string;
}

export interface ExchangeInput {
  method: Method;
  url: string;
  headers: Record<string, string>;
  body?: string;
  purpose: Purpose;
  source?: string;
  validatorsSent?: Validators;
  /** Decoded bytes to read at most. */
  limit: number;
  /** The floor or the Crawl-delay (P10); owners' gaps come from the journal. */
  gapMs: number;
  keepBody: boolean;
  signal?: AbortSignal;
  /** Judges the attempt (number `attempt` tonight, from the journal) before its row completes. */
  judge(result: AttemptResult, attempt: number, priorAllClosed: boolean): Judged;
}

export interface ExchangeDeps {
  clock: Clock;
  queue: SiteQueue;
  transport: Transport;
  journal: JournalPort;
  holder: string;
  archive?: ArchivePort;
  night?: string;
  deadline?: number;
}

export type Exchanged =
  | { ran: true; value: AttemptResult; judged: Judged; attempt: number; replayed: boolean }
  | {
      ran: false;
      why: "deadline" | "closed" | "left-alone" | "exhausted";
      reason: string;
      priorAllClosed?: boolean;
    };

/** Admissions that said "wait" before one said something else: a bound, never a spin. */
const MAX_WAITS = 100_000;

/** Lower-cased names; repeated headers joined with ", ", Set-Cookie kept apart. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>) {
  const headers: Record<string, string> = {};
  let setCookies: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (key === "set-cookie") setCookies = Array.isArray(value) ? value : [value];
    else headers[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { headers, setCookies };
}

/**
 * One attempt, start to end, inside its site's queue. Journal first: the row is written (and
 * the site's lease taken) in the same transaction that reads the durable state deciding the
 * send — gap, lease, a no tonight, Retry-After, owners' rules, attempts used, an answer
 * already stored (then it is replayed, nothing is sent). The answer is archived (P8) and the
 * row completed before anything else is done with it.
 */
export async function exchange(deps: ExchangeDeps, input: ExchangeInput): Promise<Exchanged> {
  const site = siteOf(input.url);
  const night = deps.night ?? nightOf(deps.clock.now());
  const key = requestKey({
    method: input.method,
    url: input.url,
    ...(input.body !== undefined ? { body: input.body } : {}),
    headers: input.headers,
  });
  return deps.queue.run(site, async () => {
    let replayAllowed = true;
    for (let waits = 0; waits < MAX_WAITS; waits++) {
      const a = await deps.journal.admit(
        {
          night,
          key,
          method: input.method,
          url: input.url,
          site,
          origin: originOf(input.url),
          ...(input.source !== undefined ? { source: input.source } : {}),
          purpose: input.purpose,
          ...(input.validatorsSent ? { validatorsSent: input.validatorsSent } : {}),
          gapMs: input.gapMs,
          ...(deps.deadline !== undefined ? { deadline: deps.deadline } : {}),
          replayAllowed,
        },
        deps.holder,
        () => deps.clock.now(),
      );
      switch (a.kind) {
        case "wait":
          await deps.clock.sleep(Math.max(0, a.until - deps.clock.now()), input.signal);
          continue;
        case "answered": {
          const stored = await deps.journal.answer(night, key);
          const value = stored ? await replay(deps, input, stored) : undefined;
          if (!value) {
            replayAllowed = false;
            continue;
          }
          const judged = input.judge(value, stored?.attempt ?? 1, stored?.priorAllClosed ?? false);
          return { ran: true, value, judged, attempt: 0, replayed: true };
        }
        case "closed":
          return { ran: false, why: "closed", reason: a.reason };
        case "left-alone":
          return { ran: false, why: "left-alone", reason: a.reason };
        case "not-tonight":
          return { ran: false, why: "deadline", reason: a.reason };
        case "exhausted":
          return {
            ran: false,
            why: "exhausted",
            reason: "every attempt tonight was interrupted",
            priorAllClosed: a.priorAllClosed,
          };
        case "go":
          return send(deps, input, a.id, a.startedAt, a.attempt, a.priorAllClosed);
      }
    }
    return { ran: false, why: "deadline", reason: "the site stayed busy" };
  });
}

async function send(
  deps: ExchangeDeps,
  input: ExchangeInput,
  id: string,
  startedAt: number,
  attempt: number,
  priorAllClosed: boolean,
): Promise<Exchanged> {
  let result: AttemptResult;
  try {
    const res = await deps.transport({
      method: input.method,
      url: input.url,
      headers: input.headers,
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (res.kind === "failure") {
      result = { ...res, startedAt, endedAt: deps.clock.now() };
    } else {
      const { headers, setCookies } = flattenHeaders(res.headers);
      const read = await readBody(
        res.body,
        headers["content-encoding"],
        input.limit,
        input.purpose === "robots",
      );
      result = {
        kind: "response",
        status: res.status,
        headers,
        setCookies,
        read,
        startedAt,
        endedAt: deps.clock.now(),
      };
    }
  } catch (err) {
    // A bug, not an answer: the row says so, and the lease is let go.
    return failedAfterSend(deps, id, err, { endedAt: deps.clock.now(), status: null, bytes: 0 });
  }
  let judged: Judged;
  let archived: boolean;
  try {
    judged = input.judge(result, attempt, priorAllClosed);
    archived = await archiveIfKept(deps, input, result);
  } catch (err) {
    // The answer came but could not be judged or kept (a full disk): the row still records
    // its end, so the site's gap counts from it (P10), then the error goes up.
    return failedAfterSend(deps, id, err, {
      endedAt: result.endedAt,
      status: result.kind === "response" ? result.status : null,
      bytes: result.kind === "response" ? result.read.bytes : 0,
    });
  }
  const retryAfter = result.kind === "response" ? siteHold(result) : undefined;
  await deps.journal.complete(id, deps.holder, {
    endedAt: result.endedAt,
    status: result.kind === "response" ? result.status : null,
    outcome: judged.outcome,
    ...failureOf(result),
    bytes: result.kind === "response" ? result.read.bytes : 0,
    ...(result.kind === "response" ? received(result.headers) : {}),
    ...(judged.evidence ? { evidence: judged.evidence } : {}),
    final: judged.final,
    closedEarly: judged.closedEarly,
    ...(judged.retryWaitMs !== undefined ? { retryAt: result.endedAt + judged.retryWaitMs } : {}),
    ...(judged.final
      ? {
          answer: {
            ...stored(result, archived),
            ...(input.source !== undefined ? { source: input.source } : {}),
            attempt,
            priorAllClosed,
          },
        }
      : {}),
    ...(judged.closeSite !== undefined ? { closeSite: judged.closeSite } : {}),
    ...(retryAfter !== undefined ? { siteNotBefore: retryAfter } : {}),
  });
  return { ran: true, value: result, judged, attempt, replayed: false };
}

/** Completes the row of a send that threw (`interrupted`, with its end) and rethrows. */
async function failedAfterSend(
  deps: ExchangeDeps,
  id: string,
  err: unknown,
  end: { endedAt: number; status: number | null; bytes: number },
): Promise<never> {
  await deps.journal.complete(id, deps.holder, {
    ...end,
    outcome: "interrupted",
    failure: `internal: ${err instanceof Error ? err.message : String(err)}`,
    final: false,
    closedEarly: false,
  });
  throw err;
}

/** RFC 9110 §10.2.3: a Retry-After on a 429 or 5xx holds the whole site until then (P15). */
function siteHold(r: AttemptResult & { kind: "response" }): number | undefined {
  if (r.status !== 429 && r.status < 500) return undefined;
  const ms = parseRetryAfter(r.headers["retry-after"], r.endedAt);
  return ms === undefined ? undefined : r.endedAt + ms;
}

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
    archived,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
  };
}

/**
 * An answer received in full earlier tonight, rebuilt without asking (P8): its body comes
 * back from the archive. Undefined when the copy is not there to rebuild it from, or when a
 * partial body mattered (a robots.txt over its limit): then the request is asked again.
 */
async function replay(
  deps: ExchangeDeps,
  input: ExchangeInput,
  a: StoredAnswer,
): Promise<AttemptResult | undefined> {
  if (a.kind === "failure") {
    return {
      kind: "failure",
      failure: a.failure,
      message: a.message,
      ...(a.address !== undefined ? { address: a.address } : {}),
      startedAt: a.startedAt,
      endedAt: a.endedAt,
    };
  }
  let read: BodyRead;
  if (a.read === "complete") {
    let body: Uint8Array | undefined = new Uint8Array(0);
    const noBody =
      a.status === 304 ||
      (a.status >= 100 && a.status < 200) ||
      (a.status >= 300 && a.status < 400);
    // An error's body only matters to tell a challenge page (P21), and a no has closed the
    // site already: a 4xx/5xx is replayed without its copy when the copy is not there.
    const bodyOptional = noBody || a.status >= 400 || !input.keepBody;
    if (a.archived && input.keepBody) {
      body = await deps.archive?.bodyOf?.({
        url: input.url,
        method: input.method,
        fetchedAt: a.startedAt,
      });
      if (!body && !bodyOptional) return undefined;
    } else if (!bodyOptional) return undefined;
    read = { kind: "complete", body: body ?? new Uint8Array(0), bytes: a.bytes };
  } else if (a.read === "too-large") {
    if (input.purpose === "robots") return undefined;
    read = { kind: "too-large", body: new Uint8Array(0), bytes: a.bytes };
  } else if (a.read === "failed") {
    read = {
      kind: "failed",
      failure: a.failure ?? "other",
      message: a.message ?? "",
      bytes: a.bytes,
    };
  } else {
    read = { kind: "bad-encoding", message: a.message ?? "", bytes: a.bytes };
  }
  return {
    kind: "response",
    status: a.status,
    headers: a.headers,
    // P22: a cookie the site set goes back only within that source's check.
    setCookies: a.source === input.source ? (a.setCookies ?? []) : [],
    read,
    startedAt: a.startedAt,
    endedAt: a.endedAt,
  };
}

function failureOf(r: AttemptResult): { failure?: string } {
  if (r.kind === "failure") return { failure: `${r.failure}: ${r.message}` };
  if (r.read.kind === "failed") return { failure: `${r.read.failure}: ${r.read.message}` };
  if (r.read.kind === "bad-encoding") return { failure: `encoding: ${r.read.message}` };
  return {};
}

function received(h: Record<string, string>): { validatorsReceived?: Validators } {
  const v: Validators = {};
  if (h["etag"]) v.etag = h["etag"];
  if (h["last-modified"]) v.lastModified = h["last-modified"];
  return v.etag || v.lastModified ? { validatorsReceived: v } : {};
}

/** P8: every 2xx/4xx/5xx body read in full is kept; rechecks (keepBody false) keep nothing. */
async function archiveIfKept(
  deps: ExchangeDeps,
  input: ExchangeInput,
  r: AttemptResult,
): Promise<boolean> {
  if (!deps.archive || !input.keepBody || r.kind !== "response") return false;
  if (r.read.kind !== "complete" || (r.status >= 100 && r.status < 200)) return false;
  if (r.status >= 300 && r.status < 400) return false;
  await deps.archive.write({
    request: {
      method: input.method,
      url: input.url,
      headers: input.headers,
      ...(input.body !== undefined ? { body: input.body } : {}),
    },
    response: {
      status: r.status,
      headers: r.headers,
      url: input.url,
      body: r.read.body,
      chain: [input.url],
    },
    fetchedAt: r.startedAt,
    purpose: input.purpose,
    ...(input.source !== undefined ? { source: input.source } : {}),
  });
  return true;
}
