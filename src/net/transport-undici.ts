import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, buildConnector, request } from "undici";
import { ConfigError } from "../errors.js";
import { BODY_SILENCE_MS, HEADERS_TIMEOUT_MS } from "../policy/constants.js";
import {
  type AddressGuardOptions,
  checkAddress,
  guardedLookup,
  parsePins,
  pinnedAddress,
  stripBrackets,
} from "./address-guard.js";
import { mapBodyError, mapTransportError } from "./transport-errors.js";
import type { Transport, TransportResult } from "./types.js";

export interface UndiciTransportOptions extends AddressGuardOptions {
  /** An extra CA certificate (PEM) trusted besides the system roots. Verification stays on. */
  caFile?: string;
  /** P14: may be shortened for tests, never lengthened past 30 s. */
  headersTimeoutMs?: number;
  /** P14: longest silence while a body is read; may be shortened, never lengthened. */
  bodyTimeoutMs?: number;
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
    connectTimeout: clampTimeout(opts.connectTimeoutMs, 10_000, "connectTimeout"),
  };
}

export function createUndiciTransport(opts: UndiciTransportOptions = {}): UndiciTransport {
  const allowPrivate = opts.allowPrivateAddresses === true;
  const pins = parsePins(opts.resolve);
  const { headersTimeout, bodyTimeout, connectTimeout } = effectiveTimeouts(opts);
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
    try {
      const res = await request(url, {
        method: req.method,
        headers: req.headers,
        dispatcher: agent,
        ...(req.body !== undefined ? { body: req.body } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
      });
      const body = res.body;
      return {
        kind: "response",
        status: res.statusCode,
        headers: res.headers as Record<string, string | string[]>,
        body: mappedBody(body),
      };
    } catch (err) {
      return mapTransportError(err);
    }
  };
  return Object.assign(transport, { close: () => agent.close() });
}

/** Body chunks; a failure mid-body becomes a TransportBodyError. Leaving early aborts the socket. */
async function* mappedBody(body: AsyncIterable<Uint8Array> & { destroy(): void }) {
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (err) {
    throw mapBodyError(err);
  } finally {
    body.destroy();
  }
}
