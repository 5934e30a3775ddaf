import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { rootCertificates } from "node:tls";
import type requestOf from "undici/lib/api/api-request.js";
import type buildConnectorOf from "undici/lib/core/connect.js";
// Only the three parts of undici the transport uses, by path: its agent, its connector and
// its `request`. undici's index also loads fetch, WebSocket, EventSource, its caches and its
// mocks, about 8 MB of a night's resident memory for nothing (docs/benchmarks.md "A night's
// memory"). undici has no `exports` map; undici-parts.d.ts gives the three their types,
// and test/cli/lazy-load.test.ts says which of undici's files a night loads. Required, not
// imported: undici is CommonJS (cjs.ts says why).
import type AgentOf from "undici/lib/dispatcher/agent.js";
import { requireCjs } from "../cjs.js";
import { ConfigError } from "../errors.js";
import { BODY_SILENCE_MS, BODY_TOTAL_MS, HEADERS_TIMEOUT_MS } from "../policy/constants.js";
import { pathAndQueryOf } from "../policy/robots/fetch-state.js";
import {
  type AddressGuardOptions,
  checkAddress,
  guardedLookup,
  parsePins,
  pinnedAddress,
  stripBrackets,
} from "./address-guard.js";
import { mapBodyError, mapTransportError } from "./transport-errors.js";
import { type Transport, TransportBodyError, type TransportResult } from "./types.js";

const request = requireCjs("undici/lib/api/api-request.js") as typeof requestOf;
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

/** A timeout may be shortened (tests) but never set past its P14 floor, nor disabled. */
function clampTimeout(value: number | undefined, ceiling: number, name: string): number {
  if (value === undefined) return ceiling;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be > 0 ms`);
  return Math.min(value, ceiling);
}

function readCa(caFile: string): string[] {
  try {
    return [...rootCertificates, readFileSync(caFile, "utf8")];
  } catch (err) {
    throw new ConfigError(`--ca-file ${caFile}: ${(err as Error).message}`, { cause: err });
  }
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
    ...(opts.caFile ? { ca: readCa(opts.caFile) } : {}),
  });
  const agent = new Agent({
    headersTimeout,
    bodyTimeout,
    connections: 1,
    // The connector is where the address guard runs: it sees the address we connect to.
    connect(options, callback) {
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

  const transport: Transport = async (req): Promise<TransportResult> => {
    const url = new URL(req.url);
    // P18, P27: the request line carries exactly the path and query robots.txt judged and the
    // log records (an empty `?` included), never undici's own re-serialisation of the URL.
    const path = pathAndQueryOf(url);
    // P14: one deadline for the headers from the start of the attempt: connect and TLS count,
    // and an interim 1xx (which restarts undici's own headers timer) never extends it.
    const expiry = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, expiry.signal]) : expiry.signal;
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => {
        expired = true;
        expiry.abort(new Error(`no response headers within ${headersTimeout} ms`));
        resolve("expired");
      }, headersTimeout);
    });
    const headersLate: TransportResult = {
      kind: "failure",
      failure: "timeout-headers",
      message: `no response headers within ${headersTimeout} ms of the attempt's start (P14)`,
    };
    const pending = request.call(agent, {
      origin: url.origin,
      path,
      method: req.method,
      headers: req.headers,
      signal,
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    try {
      const first = await Promise.race([pending, deadline]);
      if (first === "expired") {
        // undici settles an aborted request only once its connection exists (a handshake may
        // still be under way); whatever it brings then is dropped unread.
        pending.then(
          (late) => late.body.destroy(),
          () => {},
        );
        return headersLate;
      }
      return {
        kind: "response",
        status: first.statusCode,
        headers: first.headers as Record<string, string | string[]>,
        body: timedBody(first.body, bodyTotal),
      };
    } catch (err) {
      return expired ? headersLate : mapTransportError(err);
    } finally {
      clearTimeout(timer);
    }
  };
  return Object.assign(transport, { close: () => agent.close() });
}

type RawBody = AsyncIterable<unknown> & { destroy(err?: Error): unknown };

/**
 * Body chunks; a failure mid-body becomes a TransportBodyError. P14: the body must end within
 * `totalMs` of its headers, however steadily it trickles (undici's bodyTimeout covers the
 * silence between chunks); past that the socket is destroyed and the read fails as
 * `timeout-body`, which P15 never retries. Leaving early, or finishing, releases the socket.
 */
export function timedBody(body: RawBody, totalMs: number): AsyncIterable<Uint8Array> {
  // The error is made only when it happens: an Error captures a stack trace, per request.
  const timer = setTimeout(
    () =>
      body.destroy(
        new TransportBodyError(
          "timeout-body",
          `body not complete within ${totalMs} ms of its headers (P14)`,
        ),
      ),
    totalMs,
  );
  let open = true;
  const finish = () => {
    if (!open) return;
    open = false;
    clearTimeout(timer);
    body.destroy();
  };
  return {
    [Symbol.asyncIterator]() {
      const it = body[Symbol.asyncIterator]();
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          try {
            const r = await it.next();
            if (r.done) finish();
            return r as IteratorResult<Uint8Array>;
          } catch (err) {
            finish();
            throw mapBodyError(err);
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          finish();
          await it.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
