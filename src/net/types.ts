/**
 * The fetch pipeline's public shapes. Expected results are a tagged union (never thrown).
 * Every other layer talks to the network only through a `Fetcher`.
 */
import { NorError } from "../errors.js";

/** P27: why a request was made. */
export type Purpose =
  | "robots"
  | "page"
  | "backfill"
  | "form"
  | "redirect"
  | "recheck"
  /** `nor night --canary`: one request before the night to see that the internet is there. */
  | "canary";

export type Method = "GET" | "HEAD" | "POST";

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface FetchRequest {
  url: string;
  method?: Method;
  /** Form bodies only (P5). */
  body?: string;
  /** Only content-type / accept are honoured; Authorization, Cookie and the rest are refused (P3). */
  contentType?: string;
  accept?: string;
  purpose: Purpose;
  /** Catalog source id, for the log (P27). */
  source?: string;
  /** Stored ETag / Last-Modified, sent back as If-None-Match / If-Modified-Since (P12). */
  validators?: Validators;
  /**
   * The validators of a redirect target (P12): a page that moved keeps its own copy under its
   * new URL, so each GET hop after the first asks for that URL's validators.
   */
  validatorsFor?: (url: string) => Promise<Validators | undefined>;
  /** Cookies this site set during this source's check tonight (P22); one jar per source check. */
  cookieJar?: CookieJarPort;
  /** Rechecks keep no body (P25). Default true. */
  keepBody?: boolean;
  signal?: AbortSignal;
  /**
   * Whether the caller still holds the work this request is part of (a night's lane, which
   * another process may take over from a worker frozen past its lease): asked before each
   * admission, a retry's and a redirect hop's included. False: nothing more is sent for it,
   * and the fetch throws `NotHeld` (P8, P9). A plain `true` while the hold is sure (no promise
   * a request: it is asked before every admission).
   */
  held?: () => boolean | Promise<boolean>;
  /**
   * Why the hold is gone, once `held` has said false, when it is not that another process took
   * the lane over (a person marked the source not read since its turn, P24): written on the row
   * of a request admitted and then not sent (P27). Undefined: its lane is another's.
   */
  notHeldWhy?: () => string | undefined;
}

/** The evidence recorded for a "no" (P21). */
export interface RefusalEvidence {
  provider: string;
  verdict: "challenge" | "block" | "suspected" | "status" | "rate-limit" | "tls" | "closed";
  marker?: string;
  reference?: string;
}

export interface FetchedResponse {
  status: number;
  /** Lower-cased header names; repeated headers joined with ", " (set-cookie kept apart). */
  headers: Record<string, string>;
  url: string;
  /** Decoded body (gzip/deflate/br undone), at most MAX_BODY_BYTES. Empty when keepBody is false. */
  body: Uint8Array;
  /** Redirect chain, first request first, this response's URL last. */
  chain: string[];
  /**
   * P11: the chain has at least one hop and every one was a permanent redirect (301, 308):
   * the page now lives at `url` (net/steps/redirects.ts).
   */
  movedPermanently?: true;
}

export type FetchOutcome =
  | ({ kind: "ok" } & FetchedResponse)
  | ({ kind: "not-modified" } & Omit<FetchedResponse, "body">)
  | {
      kind: "refused";
      url: string;
      status: number | null;
      reason: string;
      evidence: RefusalEvidence;
    }
  | { kind: "gone"; url: string; status: number }
  /**
   * Another 4xx, a 5xx that outlasted retries, a Retry-After over 60 s or unreadable, a bad
   * redirect.
   */
  | {
      kind: "error";
      url: string;
      status: number | null;
      reason: string;
      /**
       * P15: the site's own hold: its answer (a 5xx or 429 head) asked for a wait longer than
       * the night waits (a Retry-After over 60 s or unreadable), so it is not asked again
       * tonight. The site's "later", which says nothing of the page itself (P7).
       */
      held?: true;
      /**
       * P7: the request was sent and no answer about the page came back: the connection was
       * closed or reset, the body cut or malformed on the way, or a 5xx (or a 429 the site's
       * hold) after its retries, or its sends tonight were used up so. Absent for an answer that
       * is not the page (a 4xx, a redirect not followed, a 2xx whose body cannot be undone) and
       * for a request never sent (its address refused, say).
       */
      noAnswer?: true;
      /**
       * P7: the request never left (the site gate's politeness did not send it: its planned
       * start never came; the robots.txt it waits on could not be asked for the checker's own
       * failures): no answer of any kind about the page, so nothing is judged of it.
       */
      notSent?: true;
    }
  | { kind: "unreachable"; url: string; reason: string }
  | { kind: "timed-out"; url: string; phase: "headers" | "body" }
  | { kind: "too-large"; url: string; status: number; bytesRead: number }
  /** Never sent: robots.txt disallows it for us (P18), or the site's owner asked (reason). */
  | { kind: "disallowed"; url: string; reason?: string }
  /** Never sent: the origin's robots.txt could not be read tonight (P20). */
  | { kind: "robots-unavailable"; url: string; origin: string; reason: string }
  /** Never sent: the address guard refused the address (loopback, private, …). */
  | { kind: "blocked-address"; url: string; address: string }
  /** Never sent: the night's deadline has passed (P13). */
  /**
   * Not asked: its start would fall after the night's deadline. `reason`, when the site's own
   * wait or its owner's pace put it there (policy/admission.ts `held`), rather than the night's
   * time running out.
   */
  | { kind: "deadline"; url: string; reason?: string }
  /** Never sent: the site said no earlier tonight (P21). */
  | { kind: "site-closed"; url: string; reason: string }
  /**
   * Never sent: the site was down earlier tonight (a 5xx after a request's retries, or a
   * Retry-After over 60 s; policy/admission.ts siteDownReason). Not a no.
   */
  | {
      kind: "site-down";
      url: string;
      reason: string;
      /**
       * P15, P25: this very request was sent tonight before the site was found down, by other
       * traffic to the site meanwhile: its latest attempt answered `status` (null: no full
       * answer, a connection closed early), and the retry that had to follow is the one not
       * sent. Absent when nothing of it was sent.
       */
      answered?: { status: number | null };
    };

export type FetchKind = FetchOutcome["kind"];

export interface Fetcher {
  fetch(req: FetchRequest): Promise<FetchOutcome>;
}

/** One attempt, as written to the request log (P27) before the next attempt starts. */
export interface RequestLogEntry {
  startedAt: number;
  /** Null while in flight, and for an attempt a crash interrupted (outcome `interrupted`). */
  endedAt: number | null;
  method: Method;
  url: string;
  status: number | null;
  /** ok | not-modified | refused | gone | error | unreachable | timed-out | too-large | retry … */
  outcome: string;
  /** Failure detail (e.g. ECONNRESET, certificate error), when any. */
  failure?: string;
  bytes: number;
  site: string;
  origin: string;
  source?: string;
  purpose: Purpose;
  attempt: number;
  validatorsSent?: Validators;
  validatorsReceived?: Validators;
  evidence?: RefusalEvidence;
  /** The night this attempt belongs to, when run by `nor night` (YYYY-MM-DD). */
  night?: string;
}

/** Ports: narrow shapes the store implements; tests use in-memory fakes (memory-ports.ts). */

/** Appends finished attempts (imports and tests); the fetcher writes through the journal. */
export interface RequestLogPort {
  append(entry: RequestLogEntry): Promise<void>;
}

export interface CachedRobots {
  origin: string;
  fetchedAt: number;
  /** rules: a 2xx body; allow-all: a 4xx; unreachable: 5xx, 429, network error, cut body, 6th hop. */
  state: "rules" | "allow-all" | "unreachable";
  status: number | null;
  body?: string;
  etag?: string;
  lastModified?: string;
  reason?: string;
  /**
   * The night the answer was read in (none outside a night): an "unreachable" holds for the rest
   * of that night (P20); any other serves that night, and a later night reads the file again (P16).
   */
  night?: string;
}

export interface RobotsCachePort {
  get(origin: string): Promise<CachedRobots | undefined>;
  put(entry: CachedRobots): Promise<void>;
}

export interface CookieJarPort {
  /** The Cookie header value for this URL, or undefined. */
  cookieHeader(url: string): string | undefined;
  /** Store the Set-Cookie headers of a response from this URL. */
  store(url: string, setCookies: string[]): void;
}

/** The private copy (P8): every response read is handed to it. */
export interface ArchiveExchange {
  request: { method: Method; url: string; headers: Record<string, string>; body?: string };
  response: FetchedResponse;
  fetchedAt: number;
  purpose: Purpose;
  source?: string;
  /** The night whose request brought it (P8: that night's answer, found again after a restart). */
  night?: string;
}

export interface ArchivePort {
  /** Resolves once the exchange is kept: its records durable and its index row committed. */
  write(exchange: ArchiveExchange): Promise<void>;
  /**
   * Resolves once the records are durable and the index row is queued in the store's group
   * commit (the journal's), before that row commits: `indexed` settles when it has. A journal
   * write queued after this resolves commits with the row or after it, never before.
   */
  writeQueued?(exchange: ArchiveExchange): Promise<{ indexed: Promise<void> }>;
  /** The body stored for one exchange (for replaying an answer already received, P8). */
  bodyOf?(q: { url: string; method: string; fetchedAt: number }): Promise<Uint8Array | undefined>;
}

/**
 * The innermost seam: send one HTTP request, follow nothing, decode nothing. The default is
 * undici (src/net/transport-undici.ts); the night's simulation passes a virtual-time one.
 */
export interface TransportRequest {
  method: Method;
  url: string;
  /** Exactly the headers to send (the pipeline sets User-Agent, conditionals, cookies). */
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export type TransportFailure =
  | "timeout-headers"
  | "timeout-body"
  | "reset"
  | "closed"
  | "refused"
  | "dns"
  | "tls"
  | "blocked-address"
  | "other";

export type TransportResult =
  | {
      kind: "response";
      status: number;
      headers: Record<string, string | string[]>;
      /** Raw (possibly compressed) body; iterating it may throw a TransportBodyError. */
      body: AsyncIterable<Uint8Array>;
      remoteAddress?: string;
    }
  | { kind: "failure"; failure: TransportFailure; message: string; address?: string };

/** Thrown by a response body iterator when the body fails mid-way (reset, 30 s of silence). */
/** A body cut off mid-transfer (or timed out, P14): the fetcher reads `failure`. */
export class TransportBodyError extends NorError {
  override name = "TransportBodyError";
  constructor(
    readonly failure: TransportFailure,
    message: string,
  ) {
    super("E_TRANSPORT_BODY", message);
  }
}

export type Transport = (req: TransportRequest) => Promise<TransportResult>;
