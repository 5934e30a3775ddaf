import type { Clock } from "../clock.js";
import { originOf, siteOf } from "../policy/site.js";
import { type BodyRead, readBody } from "./body-reader.js";
import type { SiteGate } from "./site-gate.js";
import type {
  ArchivePort,
  Method,
  Purpose,
  RefusalEvidence,
  RequestLogPort,
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

export interface ExchangeInput {
  method: Method;
  url: string;
  headers: Record<string, string>;
  body?: string;
  purpose: Purpose;
  source?: string;
  attempt: number;
  validatorsSent?: Validators;
  /** Decoded bytes to read at most. */
  limit: number;
  gapMs: number;
  notBefore?: number;
  keepBody: boolean;
  signal?: AbortSignal;
  /** Names the attempt for the log; runs inside the site's lane, before the log write. */
  label(result: AttemptResult): { outcome: string; evidence?: RefusalEvidence };
}

export interface ExchangeDeps {
  clock: Clock;
  gate: SiteGate;
  transport: Transport;
  log: RequestLogPort;
  archive?: ArchivePort;
  night?: string;
}

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
 * One attempt, start to end, inside its site's lane: send, read the body, hand it to the
 * archive (P8), and append the log entry (P27) before the lane opens for the next request.
 */
export async function exchange(deps: ExchangeDeps, input: ExchangeInput) {
  const site = siteOf(input.url);
  return deps.gate.run(
    site,
    input.gapMs,
    async () => {
      const startedAt = deps.clock.now();
      const res = await deps.transport({
        method: input.method,
        url: input.url,
        headers: input.headers,
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      let result: AttemptResult;
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
        const endedAt = deps.clock.now();
        result = {
          kind: "response",
          status: res.status,
          headers,
          setCookies,
          read,
          startedAt,
          endedAt,
        };
      }
      const { outcome, evidence } = input.label(result);
      await archiveIfKept(deps, input, result);
      await deps.log.append({
        startedAt,
        endedAt: result.endedAt,
        method: input.method,
        url: input.url,
        status: result.kind === "response" ? result.status : null,
        outcome,
        ...failureOf(result),
        bytes: result.kind === "response" ? result.read.bytes : 0,
        site,
        origin: originOf(input.url),
        ...(input.source !== undefined ? { source: input.source } : {}),
        purpose: input.purpose,
        attempt: input.attempt,
        ...(input.validatorsSent ? { validatorsSent: input.validatorsSent } : {}),
        ...(result.kind === "response" ? received(result.headers) : {}),
        ...(evidence ? { evidence } : {}),
        ...(deps.night !== undefined ? { night: deps.night } : {}),
      });
      return result;
    },
    input.notBefore,
  );
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
async function archiveIfKept(deps: ExchangeDeps, input: ExchangeInput, r: AttemptResult) {
  if (!deps.archive || !input.keepBody || r.kind !== "response") return;
  if (r.read.kind !== "complete" || (r.status >= 100 && r.status < 200)) return;
  if (r.status >= 300 && r.status < 400) return;
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
}
