/**
 * The request journal (P27, written ahead): every attempt's row is durable before its first
 * byte is sent, and completed when it ends. It is also the one durable truth the fetcher reads
 * at the moment of sending: the site's gap, the request in flight, a no tonight, a
 * Retry-After, the owners' requests, the attempts used on this URL tonight, and whether the
 * answer is already stored. The store implements it (src/store/journal.ts); tests and the
 * simulation use the in-memory one (memory-ports.ts). Both decide with the same pure
 * `admit` (src/policy/admission.ts).
 */
import { createHash } from "node:crypto";
import type { Admission, DecisionTime } from "../policy/admission.js";
import type { AttemptResult } from "./pipeline.js";
import type {
  Method,
  Purpose,
  RefusalEvidence,
  RequestLogEntry,
  TransportFailure,
  Validators,
} from "./types.js";

/** What a request is, for the journal: one row per attempt. */
export interface SendIntent {
  night: string;
  /** The same request tonight: method, URL, body and the validators sent. */
  key: string;
  method: Method;
  url: string;
  site: string;
  origin: string;
  source?: string;
  purpose: Purpose;
  validatorsSent?: Validators;
  /** The floor or the robots.txt Crawl-delay (P10); the owner's gap is added by the journal. */
  gapMs: number;
  deadline?: number;
  /** False when a stored answer cannot be replayed (its copy is gone): ask again. */
  replayAllowed: boolean;
  /**
   * How long before its allowed start the request may be admitted (policy/admission.ts): the
   * row written with its planned start, the lease taken, the caller sending at that start.
   */
  aheadMs?: number;
}

/**
 * On "go", the row's id; `startedAt` is its planned start (now, or ahead: sent then, never
 * before); `rules`, the site's owner rules as the decision read them (JournalPort.rulesNow).
 */
export type Admitted =
  | (Extract<Admission, { kind: "go" }> & { id: string; rules: string })
  | Exclude<Admission, { kind: "go" }>;

/** A complete answer as stored for replay: everything but the body, which the archive holds. */
export type StoredAnswer = StoredAttempt & {
  /** The attempt it answered, and whether those before it were all closed early (P15, P21). */
  attempt: number;
  priorAllClosed: boolean;
};

export type StoredAttempt =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string>;
      /** Replayed into the jar of the same source only, as if received again (P22). */
      setCookies?: string[];
      /** The source whose check received it. */
      source?: string;
      read: "complete" | "too-large" | "failed" | "bad-encoding";
      bytes: number;
      failure?: TransportFailure;
      message?: string;
      /** Whether the body went to the archive (and must come back from it on replay). */
      archived: boolean;
      /** Location was sent more than once, with different values (never followed, P19). */
      severalLocations?: true;
      /** The validators the request carried: a 304 answers only the same ones again. */
      validatorsSent?: Validators;
      startedAt: number;
      endedAt: number;
      /**
       * P16, P11: a robots.txt read's body (base64, at most ROBOTS_READ_LIMIT: a file over it,
       * read "too-large", keeps its first bytes, which are what is parsed), kept with the
       * answer in the shared store too: a process whose archive lacks the copy (another
       * machine's, with a data directory of its own) replays it from here, never asking
       * robots.txt again the same night. A page's body is the archive's alone.
       */
      robotsBody?: string;
    }
  /** A transport failure is stored as the attempt had it. */
  | Extract<AttemptResult, { kind: "failure" }>;

export interface Completion {
  endedAt: number;
  status: number | null;
  /** The log's word for the attempt (ok, retry, refused, redirect, rules, …). */
  outcome: string;
  failure?: string;
  bytes: number;
  validatorsReceived?: Validators;
  evidence?: RefusalEvidence;
  /** The answer is complete: it is replayed, never asked again tonight. */
  final: boolean;
  closedEarly: boolean;
  /** P15: the next attempt at this request starts no sooner. */
  retryAt?: number;
  /**
   * P15: a send the checker's own stop cut short is tried again as a connection closed early
   * is (5 s, then 20 s): the next attempt starts no sooner, unless its head asked for a wait
   * of its own (journaled before, WaitAsked), which is kept.
   */
  retryAtIfNone?: number;
  answer?: StoredAnswer;
  /** P21: the site of this request said no; it is closed for the night. */
  closeSite?: string;
  /** The site answered a 5xx after the request's retries: down for the night (not a no). */
  downSite?: string;
  /** RFC 9110 §10.2.3: the site asked for no request before then. */
  siteNotBefore?: number;
}

/** What an answer's head decides, before its body is read (JournalPort.waitAsked). */
export interface WaitAsked {
  status: number;
  /**
   * P15: the next attempt at this request starts no sooner; far past any night when it is not
   * to be asked again tonight. Set, the attempt counts as a try even if its body is never read.
   */
  retryAt?: number;
  /** RFC 9110 §10.2.3, P15: no request to the site before then. */
  siteNotBefore?: number;
  /** P21: the site said no (a 429 past its retries, a page's 401 or 403): closed for the night. */
  closeSite?: string;
  /** A page's 5xx past its retries (or a Retry-After over 60 s): the site down for the night. */
  downSite?: string;
}

export interface JournalPort {
  /**
   * In one write transaction: read the site's state, its owners' rules and this request's
   * attempts tonight, decide (policy/admission), and on "go" write the row (started at the
   * planned start) and take the lease.
   */
  admit(intent: SendIntent, holder: string, now: DecisionTime): Promise<Admitted>;
  /**
   * P15, P21, written ahead of the body: what the answer's head decides (a 429 or 5xx: the
   * retry's wait or none tonight, a Retry-After, a 429's no). In one write transaction, before
   * the body is read: the row's status and retry time, the site's hold (the later wins) and
   * closure, so that a crash while the body is read loses none of it and the attempt counts.
   * Ignored once the row is completed; `complete` writes them again at the end.
   */
  waitAsked(id: string, w: WaitAsked): Promise<void>;
  /**
   * In one write transaction: complete the row, record the end, release the lease. Only a row
   * still in flight and still `holder`'s is completed (compare and set): one another process
   * took over meanwhile (this one frozen past its lease: marked interrupted) stays interrupted,
   * counted as sent and never replayed, and false is returned; what the site answered is still
   * written on it where nothing was (its end, status, bytes, validators, a no's evidence, its
   * failure saying it came late: policy/admission.ts `answeredLate`; its retry time only ever
   * the later), and the site's end, hold and no are kept on the site, each only ever the
   * stricter (P10, P15, P21, P27).
   */
  complete(id: string, holder: string, c: Completion): Promise<boolean>;
  /** The stored final answer of this request tonight, if any. */
  answer(night: string, key: string): Promise<StoredAnswer | undefined>;
  /**
   * The site's owner rules as they stand now, as a token that changes whenever one is set or
   * cleared (compared with the admission's `rules`): a request admitted ahead of its start is
   * not sent when a rule changed meanwhile, and is admitted again under it (P10, P18, P26).
   */
  rulesNow(site: string): Promise<string>;
  /** Completed and interrupted attempts, for `nor log` and tests (memory: all of them). */
}

/**
 * The key of one request tonight: the same method, URL and body is the same question, asked
 * once (P8) and retried at most twice (P15), whatever headers go with it: validators taken
 * from a copy stored minutes ago, another way's Accept, a cookie. (A stored 304 answers only
 * a request carrying the same validators: see the archive step's replay.)
 */
export function requestKey(r: {
  method: Method;
  url: string;
  body?: string;
  /** Only for a redirect back into its own chain (site-gate.ts): the Cookie it carries. */
  cookie?: string;
}): string {
  // JSON: every field delimited, so a body holding a newline cannot pass for the URL.
  const fields = [r.method, r.url, r.body ?? null];
  const text = JSON.stringify(r.cookie === undefined ? fields : [...fields, r.cookie]);
  return createHash("sha256").update(text).digest("base64url").slice(0, 32);
}

/** The log entry a journal row shows, for the RequestLogEntry readers (`nor log`, tests). */
export type JournalEntry = RequestLogEntry;
