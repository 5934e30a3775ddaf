import { isIP, type Socket } from "node:net";
import { rootCertificates } from "node:tls";
import type buildConnectorOf from "undici/lib/core/connect.js";
import type utilOf from "undici/lib/core/util.js";
// Only the three parts of undici the transport uses, by path: its agent, its connector and
// its header parser (the agent loads that file anyway). undici's index also loads fetch, WebSocket, EventSource, its caches and its
// mocks, about 8 MB of a night's resident memory for nothing (docs/benchmarks.md "A night's
// memory"). undici has no `exports` map; undici-parts.d.ts gives the three their types,
// and test/cli/lazy-load.test.ts says which of undici's files a night loads. Required, not
// imported: undici is CommonJS (cjs.ts says why).
import type AgentOf from "undici/lib/dispatcher/agent.js";
import { requireCjs } from "../cjs.js";
import { ConfigError } from "../errors.js";
import {
  BODY_SILENCE_MS,
  BODY_TOTAL_MS,
  HEADERS_TIMEOUT_MS,
  REQUEST_LEASE_MS,
} from "../policy/constants.js";
import { pathAndQueryOf } from "../policy/robots/fetch-state.js";
import {
  type AddressGuardOptions,
  checkAddress,
  guardedLookup,
  parsePins,
  pinnedAddress,
  stripBrackets,
} from "./address-guard.js";
import { caCertificates } from "./ca-file.js";
import { mapBodyError, mapTransportError } from "./transport-errors.js";
import { type Transport, TransportBodyError, type TransportResult } from "./types.js";

const { parseHeaders } = requireCjs("undici/lib/core/util.js") as typeof utilOf;
const buildConnector = requireCjs("undici/lib/core/connect.js") as typeof buildConnectorOf;
const Agent = requireCjs("undici/lib/dispatcher/agent.js") as typeof AgentOf;

export interface UndiciTransportOptions extends AddressGuardOptions {
  /** An extra CA certificate (PEM) trusted besides the system roots. Verification stays on. */
  caFile?: string;
  /**
   * P14: from the start of the attempt (connect and TLS included) to the response headers;
   * may be shortened for tests, never lengthened past 30 s.
   */
  headersTimeoutMs?: number;
  /** P14: longest silence while a body is read; may be shortened, never lengthened. */
  bodyTimeoutMs?: number;
  /** P14: from the headers to the body's last byte; may be shortened, never lengthened. */
  bodyTotalMs?: number;
  connectTimeoutMs?: number;
}

export type UndiciTransport = Transport & { close(): Promise<void> };

/**
 * A timer that fires more than this long after it was due finds that this process was not
 * running meanwhile: frozen (SIGSTOP, a suspended machine) or its event loop held up. Node runs
 * due timers before it reads sockets, so what the site sent while the process was away is still
 * unread when such a timer fires: it is read first (awakeTimeout).
 */
export const LATE_TIMER_MS = 1_000;

/**
 * The longest the process's own work may hold its event loop up (a write waiting out SQLite's
 * 5 s busy wait, a collection, a large parse): a P14 window found late by less than this (or
 * by less than the window itself, when shorter) was the checker busy, not away, and is not
 * given again. Past it the process was frozen.
 */
export const OWN_LAG_MAX_MS = 10_000;

/** How many times one P14 window is given again after the process was away (awakeTimeout). */
export const MAX_LATE_REARMS = 1;

/**
 * P14 as a window the checker was there for. `onDue` is called once `ms` has passed. When the
 * timer fires late (LATE_TIMER_MS past its time, by `monotonic`), what the site sent meanwhile
 * may be waiting unread: the decision waits one turn of the event loop, in which the sockets are
 * read, so an answer that came is read rather than called a time-out. And when it fired so late
 * that the process was frozen rather than busy (by OWN_LAG_MAX_MS, or the whole window when
 * shorter), the site may not have had its window at all (its request unsent, its TLS handshake
 * unanswered): the window is given again from then, once (MAX_LATE_REARMS), but only when it
 * ends by `latestEnd` (by `monotonic`: the request's lease on its site, REQUEST_LEASE_MS from
 * the attempt's start, past which another machine may hold the site, P9). A process merely
 * held up by its own work never lengthens a request past its window and that lag: the site's
 * request lasts no longer than P14 says. `onDue` hears how long, in all, the windows given again
 * were found late. Returns the cancel.
 */
export function awakeTimeout(
  ms: number,
  onDue: (awayMs: number) => void,
  monotonic: () => number = () => performance.now(),
  latestEnd = Number.POSITIVE_INFINITY,
): () => void {
  let away = 0;
  let rearms = 0;
  let timer: NodeJS.Timeout | undefined;
  let turn: NodeJS.Immediate | undefined;
  let stopped = false;
  const arm = () => {
    const dueAt = monotonic() + ms;
    timer = setTimeout(() => {
      timer = undefined;
      const late = monotonic() - dueAt;
      if (late <= LATE_TIMER_MS) {
        onDue(away);
        return;
      }
      // Found late: the sockets are read first (the poll phase comes before setImmediate's).
      turn = setImmediate(() => {
        turn = undefined;
        if (stopped) return;
        if (
          late >= Math.min(ms, OWN_LAG_MAX_MS) &&
          rearms < MAX_LATE_REARMS &&
          monotonic() + ms <= latestEnd
        ) {
          away += late;
          rearms++;
          arm();
          return;
        }
        onDue(away);
      });
    }, ms);
  };
  arm();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    if (turn !== undefined) clearImmediate(turn);
  };
}

/** What a late-fired window says in the log (awakeTimeout). */
function awayNote(awayMs: number): string {
  return awayMs > 0
    ? `; the checker was not running for ${Math.round(awayMs)} ms of it and gave it its window again`
    : "";
}

/**
 * The longest head read, as Chrome reads one (256 KiB, ERR_RESPONSE_HEADERS_TOO_BIG past it).
 * undici's default is Node's 16 KiB: a site whose heads carry a long Content-Security-Policy or
 * many cookies had its pages unreadable and its robots.txt unreachable (the host kept off every
 * night, each source there a no, P20) though every browser reads them.
 */
export const MAX_HEAD_BYTES = 256 * 1024;

/** A timeout may be shortened (tests) but never set past its P14 floor, nor disabled. */
function clampTimeout(value: number | undefined, ceiling: number, name: string): number {
  if (value === undefined) return ceiling;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be > 0 ms`);
  return Math.min(value, ceiling);
}

/**
 * The default Transport: one HTTP/1.1 request over undici, no redirects followed, nothing
 * decoded, TLS verified (there is deliberately no switch to turn verification off, P22).
 */
export function effectiveTimeouts(opts: UndiciTransportOptions) {
  return {
    headersTimeout: clampTimeout(opts.headersTimeoutMs, HEADERS_TIMEOUT_MS, "headersTimeout"),
    bodyTimeout: clampTimeout(opts.bodyTimeoutMs, BODY_SILENCE_MS, "bodyTimeout"),
    bodyTotal: clampTimeout(opts.bodyTotalMs, BODY_TOTAL_MS, "bodyTotal"),
    connectTimeout: clampTimeout(opts.connectTimeoutMs, 10_000, "connectTimeout"),
  };
}

export function createUndiciTransport(opts: UndiciTransportOptions = {}): UndiciTransport {
  const allowPrivate = opts.allowPrivateAddresses === true;
  const pins = parsePins(opts.resolve);
  const { headersTimeout, bodyTimeout, bodyTotal, connectTimeout } = effectiveTimeouts(opts);
  const base = buildConnector({
    timeout: connectTimeout,
    rejectUnauthorized: true,
    lookup: guardedLookup(allowPrivate),
    ...(opts.caFile ? { ca: [...rootCertificates, ...caCertificates(opts.caFile)] } : {}),
  });
  // P9: the socket each origin's exchange is on. undici's Agent keeps one client per origin
  // (its key is the origin we dispatch to), and with `connections: 1` that client holds one
  // socket at a time, so the socket last connected for an origin is the one its request went
  // out on. Answer.cancel says why it closes that socket itself.
  const sockets = new Map<string, Socket>();
  // Sockets the peer reset (ECONNRESET). undici takes a reset for the end of an answer that has
  // no length (neither Content-Length nor chunked: it ends when the connection does), so such an
  // answer would read as whole when it was cut (RFC 9112 §8: incomplete); Answer asks here. The
  // listener is added as the socket is handed to undici, before undici's own, so it has run by
  // the time undici completes the answer from its error handler.
  const resets = new WeakSet<Socket>();
  const agent = new Agent({
    headersTimeout,
    bodyTimeout,
    maxHeaderSize: MAX_HEAD_BYTES,
    connections: 1,
    // The connector is where the address guard runs: it sees the address we connect to.
    connect(options, connected) {
      // undici's client passes its URL's protocol and host: together, the origin dispatched to.
      const origin = `${options.protocol}//${options.host ?? ""}`;
      const callback: typeof connected = (...args) => {
        const socket = args[1];
        if (socket) {
          sockets.set(origin, socket);
          socket.on("error", (err: NodeJS.ErrnoException) => {
            if (err.code === "ECONNRESET") resets.add(socket);
          });
          socket.once("close", () => {
            if (sockets.get(origin) === socket) sockets.delete(origin);
          });
        }
        connected(...args);
      };
      const host = stripBrackets(options.hostname);
      const port = Number(options.port || (options.protocol === "https:" ? 443 : 80));
      const pinned = pinnedAddress(pins, host, port);
      try {
        if (pinned) checkAddress(pinned, host, allowPrivate);
        else if (isIP(host) !== 0) checkAddress(host, host, allowPrivate);
      } catch (err) {
        callback(err as Error, null);
        return;
      }
      if (!pinned) {
        base(options, callback);
        return;
      }
      // Connect to the pinned address, but verify TLS against the name in the URL.
      base({ ...options, hostname: pinned, servername: options.servername ?? host }, callback);
    },
  });

  const transport: Transport = (req): Promise<TransportResult> => {
    const url = new URL(req.url);
    // P18, P27: the request line carries exactly the path and query robots.txt judged and the
    // log records (an empty `?` included), never undici's own re-serialisation of the URL.
    const path = pathAndQueryOf(url);
    return new Promise<TransportResult>((resolve) => {
      // P9: the site is this attempt's for REQUEST_LEASE_MS at most (store/journal.ts); a window
      // given again after a freeze ends within it, the body's whole window included.
      const leaseEnd = performance.now() + REQUEST_LEASE_MS;
      const answer = new Answer(
        bodyTotal,
        () => sockets.get(url.origin),
        (socket) => resets.has(socket),
        leaseEnd,
      );
      const { signal } = req;
      const onAbort = () => answer.cancel(abortReason(signal));
      let settled = false;
      const settle = (r: TransportResult) => {
        if (settled) return;
        settled = true;
        stopTimer();
        resolve(r);
      };
      // P14: one deadline for the headers from the start of the attempt: connect and TLS
      // count, and an interim 1xx (which restarts undici's own headers timer) never extends it.
      // Past it the request is let go; whatever it brings later is dropped unread. A deadline
      // passed while this process was not running is not the site's (awakeTimeout).
      const stopTimer = awakeTimeout(
        headersTimeout,
        (away) => {
          settle({
            kind: "failure",
            failure: "timeout-headers",
            message: `no response headers within ${headersTimeout} ms of the attempt's start (P14)${awayNote(away)}`,
          });
          answer.cancel(new Error(`no response headers within ${headersTimeout} ms`));
        },
        undefined,
        // Given again only when the body's whole window after it still ends within the lease.
        leaseEnd - bodyTotal,
      );
      answer.onHead = (head) => {
        if (settled) {
          answer.cancel(new Error("answered after its deadline"));
          return;
        }
        if ("error" in head) {
          signal?.removeEventListener("abort", onAbort);
          settle(mapTransportError(head.error));
          return;
        }
        settle({ kind: "response", status: head.status, headers: head.headers, body: answer });
      };
      answer.onEnd = () => signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) {
        // Stopped before it began: never dispatched, so no connection is opened for it (P9).
        answer.onError(abortReason(signal));
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      agent.dispatch(
        {
          origin: url.origin,
          path,
          method: req.method,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
        },
        answer,
      );
    });
  };
  return Object.assign(transport, { close: () => agent.close() });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error("the request was aborted");
}

/** undici's ResponseContentLengthMismatchError (client-h1.js onMessageComplete). */
function contentLengthUnmet(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH";
}

/** Bytes received and not yet read past which the socket is paused until they are. */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * What a socket let go of is destroyed with: any error but undici's informational one (P9, see
 * Answer.cancel). The answer reports the reason it was let go for, never this wrapper.
 */
class LetGo extends Error {
  constructor(reason: Error) {
    super(`let go: ${reason.message}`, { cause: reason });
    this.name = "LetGo";
  }
}

type Head = { status: number; headers: Record<string, string | string[]> } | { error: unknown };

/**
 * One request's answer as undici hands it over (its dispatch handler: no stream, no async
 * resource, no abort controller a request): the head once, to `onHead`, then the body as an
 * async iterable of its raw chunks. A failure mid-body becomes a TransportBodyError. P14: the
 * body must end within `totalMs` of its headers, however steadily it trickles (undici's
 * bodyTimeout covers the silence between chunks); past that the request is aborted (the socket
 * destroyed) and the read fails as `timeout-body`, which P15 never retries. Leaving the body
 * early, or failing, lets the socket go; reading it to its end keeps the connection.
 *
 * P9: an exchange under way is let go by destroying its own socket, never through the abort
 * undici hands over (see `cancel`), so giving up never makes undici open another connection.
 */
export class Answer implements AsyncIterable<Uint8Array> {
  onHead: (head: Head) => void = () => {};
  /** Once the exchange is over: read to its end, failed, or let go. */
  onEnd: () => void = () => {};
  readonly #totalMs: number;
  /** P9: when, by performance.now(), the attempt's lease on its site runs out (awakeTimeout). */
  readonly #leaseEnd: number;
  /** The socket this request goes out on, as the transport knows it (undefined: unknown). */
  readonly #socketOf: () => Socket | undefined;
  #socket: Socket | undefined;
  /** Whether the peer reset a socket (the transport's listener saw ECONNRESET on it). */
  readonly #wasReset: (socket: Socket) => boolean;
  /** The answer has no length: neither Content-Length nor chunked, it ends with the connection. */
  #closeDelimited = false;
  /** From undici writing the request (onConnect) to its end of it (onComplete, onError). */
  #live = false;
  /** Why the exchange was let go, once it was: the failure it then ends with. */
  #letGo: Error | undefined;
  #abort: ((err: Error) => void) | undefined;
  /** A cancel asked for before undici handed over its abort: done when it does. */
  #reason: Error | undefined;
  #resume: (() => void) | undefined;
  #headed = false;
  /** The answer's status says it has no body (a 204 or a 304, RFC 9112 §6.3). */
  #bodiless = false;
  /** Whether any byte of the body came. */
  #gotData = false;
  readonly #chunks: Uint8Array[] = [];
  #queued = 0;
  #paused = false;
  #complete = false;
  #error: unknown;
  #failed = false;
  #open = true;
  #stopTimer: (() => void) | undefined;
  /** Readers waiting for a chunk, the end or a failure. */
  #waiting: (() => void)[] = [];

  constructor(
    totalMs: number,
    socketOf: () => Socket | undefined = () => undefined,
    wasReset: (socket: Socket) => boolean = () => false,
    leaseEnd = Number.POSITIVE_INFINITY,
  ) {
    this.#totalMs = totalMs;
    this.#leaseEnd = leaseEnd;
    this.#socketOf = socketOf;
    this.#wasReset = wasReset;
  }

  /**
   * Lets the request go (its socket destroyed), now or as soon as undici can.
   *
   * Not through undici's abort once the request is on its socket: that abort destroys the
   * socket with an InformationalError (UND_ERR_INFO, client-h1.js `writeH1`), and on that code
   * the socket's close handler does not take the request off the head of the client's queue
   * but moves it back to pending (client-h1.js `onHttpSocketClose`); the client then resumes,
   * and its `_resume` (client.js) connects for that pending request before it looks whether
   * the request was aborted: a new connection, opened and closed with no request on it (undici
   * issue 5845). Destroyed with any other error, the close handler fails the request and the
   * queue is empty, so nothing reconnects; the failure comes back through `onError`.
   */
  cancel(reason: Error): void {
    if (!this.#abort) {
      this.#reason ??= reason;
      return;
    }
    if (!this.#live || this.#letGo) return;
    const socket = this.#socket;
    if (socket && !socket.destroyed) {
      this.#letGo = reason;
      socket.destroy(new LetGo(reason));
    } else this.#abort(reason);
  }

  // undici's handler (its dispatch interface).

  onConnect(abort: (err?: Error) => void): void {
    this.#abort = abort as (err: Error) => void;
    // Before the request is written: undici drops it from its queue and closes the socket.
    if (this.#reason) {
      abort(this.#reason);
      return;
    }
    this.#live = true;
    this.#socket = this.#socketOf();
  }

  onHeaders(
    status: number,
    rawHeaders: Buffer[],
    resume: () => void,
    _statusText?: string,
  ): boolean {
    if (status < 200) return true; // an interim 1xx: the answer is still to come
    this.#resume = resume;
    this.#headed = true;
    this.#bodiless = status === 204 || status === 304;
    const headers = parseHeaders(rawHeaders) as Record<string, string | string[]>;
    const coding = headers["transfer-encoding"];
    this.#closeDelimited =
      !this.#bodiless &&
      headers["content-length"] === undefined &&
      !/chunked/i.test(Array.isArray(coding) ? coding.join(",") : (coding ?? ""));
    // The error is made only when it happens: an Error captures a stack trace, per request. A
    // deadline passed while this process was not running is not the site's (awakeTimeout).
    this.#stopTimer = awakeTimeout(
      this.#totalMs,
      (away) =>
        this.#fail(
          new TransportBodyError(
            "timeout-body",
            `body not complete within ${this.#totalMs} ms of its headers (P14)${awayNote(away)}`,
          ),
          true,
        ),
      undefined,
      this.#leaseEnd,
    );
    this.onHead({ status, headers });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (!this.#open) return false;
    this.#gotData = true;
    this.#chunks.push(chunk);
    this.#queued += chunk.byteLength;
    this.#wakeUp();
    if (this.#queued < HIGH_WATER_BYTES) return true;
    this.#paused = true;
    return false;
  }

  onComplete(): void {
    // An answer without a length ends when its connection does; one that ended in a reset was
    // cut, not finished (RFC 9112 §8), however undici reads it: a robots.txt cut so would
    // otherwise be read as whole rules (P20), a page as all its records (P15 tries it again).
    if (this.#closeDelimited && this.#socket !== undefined && this.#wasReset(this.#socket)) {
      this.#live = false;
      this.#fail(
        new TransportBodyError(
          "reset",
          "connection reset before the end of an answer without a length (RFC 9112 §8: incomplete)",
        ),
        false,
      );
      return;
    }
    this.#live = false;
    this.#complete = true;
    this.#stopTimer?.();
    this.#wakeUp();
    this.onEnd();
  }

  onError(failure: unknown): void {
    // P12, P21: a 204 or 304 has no body whatever its Content-Length says (RFC 9110 §8.6 lets a
    // 304 name its copy's), but undici's parser holds it to that length and fails the answer
    // as "body length does not match content-length" once its head is in: it came whole, and
    // is no connection closed early (read so, a 304 was tried twice more and closed its site).
    if (
      this.#headed &&
      this.#bodiless &&
      !this.#gotData &&
      !this.#letGo &&
      !this.#failed &&
      contentLengthUnmet(failure)
    ) {
      this.onComplete();
      return;
    }
    this.#live = false;
    const err = this.#letGo ?? failure;
    if (!this.#headed) {
      this.#headed = true;
      this.onEnd();
      this.onHead({ error: err });
      return;
    }
    this.#fail(err, false);
  }

  // The body, for whoever reads it.

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () => this.#next(),
      return: async (): Promise<IteratorResult<Uint8Array>> => {
        this.#finish();
        return { done: true, value: undefined };
      },
    };
  }

  async #next(): Promise<IteratorResult<Uint8Array>> {
    // Each turn but the last waits for undici to hand over a chunk, the end or a failure;
    // the whole-body timer bounds the waiting (P14).
    for (;;) {
      if (!this.#open) return { done: true, value: undefined };
      const chunk = this.#chunks.shift();
      if (chunk !== undefined) {
        this.#queued -= chunk.byteLength;
        if (this.#paused && this.#queued < HIGH_WATER_BYTES) {
          this.#paused = false;
          this.#resume?.();
        }
        return { done: false, value: chunk };
      }
      if (this.#failed) {
        this.#finish();
        throw mapBodyError(this.#error);
      }
      if (this.#complete) {
        this.#finish();
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
      });
    }
  }

  #wakeUp(): void {
    if (this.#waiting.length === 0) return;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** The body failed: the first failure is the one read; `abort` lets the socket go now. */
  #fail(err: unknown, abort: boolean): void {
    if (this.#failed || this.#complete) return;
    this.#failed = true;
    this.#error = err;
    this.#stopTimer?.();
    if (abort) this.cancel(err as Error);
    this.#wakeUp();
    this.onEnd();
  }

  /** The reader is done with the body: its timer goes, and its socket unless read to the end. */
  #finish(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#stopTimer?.();
    this.#chunks.length = 0;
    this.#queued = 0;
    if (!this.#complete && !this.#failed) this.cancel(new Error("the body was left unread"));
    this.#wakeUp();
    this.onEnd();
  }
}
