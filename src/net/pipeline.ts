/**
 * The fetch pipeline's shapes: one request (`Call`) goes down a chain of steps and what it
 * came to (`Reply`) comes back up, the way undici composes dispatchers and interceptors. Each
 * step is a function of the next (`Step = (next) => handler`); `compose` builds the chain.
 * robots.txt and page requests go through the same chain: the steps that treat a robots.txt
 * request otherwise look at `robotsFor`. The order, and where each promise is kept, is in
 * fetcher.ts and docs/architecture.md.
 */
import { NorError } from "../errors.js";
import type { BodyRead } from "./body-reader.js";
import type { StoredAnswer } from "./journal.js";
import type {
  CachedRobots,
  CookieJarPort,
  FetchOutcome,
  Method,
  Purpose,
  RefusalEvidence,
  TransportFailure,
  TransportResult,
  Validators,
} from "./types.js";

/** One request as it goes down the pipeline; a step may add to it for the steps below. */
export interface Call {
  method: Method;
  url: string;
  /** Form bodies only, POST only (P5). */
  body?: string;
  contentType?: string;
  accept?: string;
  purpose: Purpose;
  source?: string;
  /** Rechecks keep no body (P25). */
  keepBody: boolean;
  signal?: AbortSignal;
  /** The caller's hold on the work this request is part of (FetchRequest.held). */
  held?: () => boolean | Promise<boolean>;
  /** Why the hold is gone, when not that the lane is another's (FetchRequest.notHeldWhy). */
  notHeldWhy?: () => string | undefined;
  /** A robots.txt request (P16): the origin whose rules it reads. Only the robots gate sets it. */
  robotsFor?: string;
  /** P19: the URLs of the hops before this one, first first; empty on the first request. */
  chain: string[];
  /** P22: the site of the first hop; cookies go only back to it. Set by the URL check. */
  homeSite?: string;
  /** P12: the validators of the first hop, and how a later GET hop finds its own. */
  validators?: Validators;
  validatorsFor?: (url: string) => Promise<Validators | undefined>;
  /** P22: this source's cookies tonight. */
  cookieJar?: CookieJarPort;
  /** validators: the conditionals this hop sends (and the log records). */
  validatorsSent?: Validators;
  /** identity: exactly the headers sent (P1, P3). Empty until then. */
  headers: Record<string, string>;
  /**
   * robots gate → site gate (P16, P9): when the robots.txt copy this request was allowed on
   * stops serving (policy/robots/copy-age.ts robotsCopyServesUntil). At or after it, the site
   * gate does not send: it answers "robots-stale" and the robots gate decides again.
   */
  robotsServesUntil?: number;
  /** site gate: what the journal admitted (a send, or a replay of tonight's stored answer). */
  ticket?: Ticket;
}

export type Ticket =
  /** The row is written and the lease taken (P27): send it. */
  | {
      kind: "send";
      id: string;
      night: string;
      attempt: number;
      priorAllClosed: boolean;
      startedAt: number;
    }
  /** Answered in full earlier tonight: rebuild the answer, send nothing (P8). */
  | { kind: "replay"; night: string; stored: StoredAnswer };

/** What one attempt came to, before classify decides what it means. */
export type AttemptResult =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string>;
      setCookies: string[];
      read: BodyRead;
      /**
       * P19, P20: the head carried Location more than once, with different values (`headers`
       * holds them joined, as received). No one can tell which was meant: never followed.
       */
      severalLocations?: true;
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

/** What classify makes of an attempt, for its journal row. */
export interface Judged {
  /** The log's word for the attempt (ok, retry, redirect, refused, rules, …). */
  label: string;
  evidence?: RefusalEvidence;
  /** The answer is complete: replayed from the journal, never asked again tonight (P8). */
  final: boolean;
  closedEarly: boolean;
  /** P15: the wait before the next attempt at this request. */
  retryWaitMs?: number;
  /**
   * P27: why a complete answer is no answer, where the transport has no failure to say (a 206,
   * Partial Content, unasked: only part of the file). The row's failure.
   */
  failure?: string;
  /** P21: the site of this request said no: closed for the night (the reason). */
  closeSite?: string;
  /**
   * The site answered a 5xx after this request's retries (or with a Retry-After over 60 s):
   * down for the rest of the night (policy/admission.ts siteDownReason). Not a no.
   */
  downSite?: string;
}

/** An answer on its way up: who has had it so far. */
export interface Got {
  answer: AttemptResult;
  /** archive: the body is in the private copy (P8). */
  archived: boolean;
  /**
   * archive: settles once the copy's index row is committed, when it was queued behind this
   * answer's completion rather than committed first (ArchivePort.writeQueued). The journal
   * step completes the row, then waits for it: a failure is the archive's (NotKept).
   */
  indexed?: Promise<void>;
  /** Rebuilt from tonight's stored answer, not sent (P8). */
  replayed: boolean;
  /** classify: what the row records. */
  judged?: Judged;
  /** A step threw after the answer came (a full disk): the journal records the end, then throws. */
  failed?: unknown;
}

/** What one robots.txt answer means for its origin (P16, P20): the entry to cache. */
export type RobotsEntry = Omit<CachedRobots, "origin" | "fetchedAt">;

export type Reply =
  /** The request's end: its outcome, and the answer it came from when there was one. */
  | { kind: "final"; outcome: FetchOutcome; got?: Got; earlier?: AttemptResult[] }
  /** A robots.txt request's end (classify, P20): what to cache, and the URL that answered. */
  | {
      kind: "robots";
      /** A 304 to the validators this request carried (RFC 9110 §15.4.5): the copy stands. */
      notModified: boolean;
      entry: RobotsEntry;
      url: string;
      got: Got;
      earlier?: AttemptResult[];
    }
  /** classify → retries (P15): ask again after the wait. */
  | { kind: "retry"; waitMs: number; got: Got }
  /** classify → redirects (P19): follow Location, from the top. */
  | { kind: "redirect"; status: number; location: string; got: Got; earlier?: AttemptResult[] }
  /** limits → archive → classify: an answer read, not judged yet. */
  | { kind: "answer"; got: Got }
  /** transport → limits: the response as it arrived, body unread. */
  | { kind: "raw"; result: TransportResult }
  /** archive → site gate: tonight's stored answer cannot be rebuilt (its copy is gone). */
  | { kind: "unreplayable" }
  /**
   * site gate → robots gate (P16): not sent, as the robots.txt copy it was allowed on stopped
   * serving before it could leave (Call.robotsServesUntil); the answers of its earlier attempts.
   */
  | { kind: "robots-stale"; earlier?: AttemptResult[] };

export type Handler = (call: Call) => Promise<Reply>;
export type Step = (next: Handler) => Handler;

/** The first step is the outermost: `compose([a, b], last)` is `a(b(last))`. */
export function compose(steps: readonly Step[], last: Handler): Handler {
  return steps.reduceRight<Handler>((next, step) => step(next), last);
}

export function final(outcome: FetchOutcome): Reply {
  return { kind: "final", outcome };
}

/** Every answer a reply carries, earliest first (for cookies, P22). */
export function answersOf(reply: Reply): AttemptResult[] {
  if (reply.kind === "raw" || reply.kind === "unreplayable") return [];
  const earlier = "earlier" in reply ? (reply.earlier ?? []) : [];
  return "got" in reply && reply.got ? [...earlier, reply.got.answer] : earlier;
}

/**
 * An answer the caller's stop cut off while its body was being read: not the site's answer, so
 * nothing judges it, but its row keeps what the site did send (the status, the bytes read).
 */
export class CutOff extends Error {
  override name = "CutOff";
  readonly status: number;
  readonly bytes: number;
  constructor(reason: unknown, status: number, bytes: number) {
    super(reason instanceof Error ? reason.message : String(reason), { cause: reason });
    this.status = status;
    this.bytes = bytes;
  }
}

/**
 * An answer received in full that the archive could not keep (a full disk, a file system gone
 * read-only): the checker's own failure, which no further request can mend. The night stops on
 * it (run-night.ts) rather than ask every site again for what it cannot keep (P8). A person
 * must make room first, so it is said as configuration (exit 2, which the systemd units do not
 * restart on): a restart would only ask again for answers it cannot keep.
 */
export class NotKept extends NorError {
  override name = "NotKept";
  constructor(cause: unknown) {
    super(
      "E_CONFIG",
      `an answer could not be kept in the archive (P8): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * The work a request was part of is no longer the caller's (FetchRequest.held said so: a night's
 * lane taken over by another process while this one was frozen past its lease): nothing was
 * sent or written for it, and the caller leaves that work to its new holder (P8, P9). Also
 * thrown for an answer read after its row was taken over (the journal step: the completion
 * refused, the lane another's): nothing is written over the new holder's truth.
 */
export class NotHeld extends Error {
  override name = "NotHeld";
  constructor(url: string, what = "not sent") {
    super(`${what}: its lane is held by another process now (${url})`);
  }
}

/**
 * The caller's hold asked (FetchRequest.held): `true` at once when it gave none or is sure (no
 * promise a request: asked before every admission and at sending), else its answer to await; a
 * promise-like that is no native Promise is awaited too, never taken for a yes unread.
 */
export function heldNow(call: Pick<Call, "held">): true | Promise<boolean> {
  const h = call.held?.();
  return h === undefined || h === true ? true : Promise.resolve(h);
}
