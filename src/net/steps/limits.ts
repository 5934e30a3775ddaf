import type { Clock } from "../../clock.js";
import { MAX_BODY_BYTES } from "../../policy/constants.js";
import { readBody } from "../body-reader.js";
import { CutOff, type Step } from "../pipeline.js";
import { ROBOTS_READ_LIMIT } from "../robots-answer.js";

/**
 * P14: a body is read at most to 20 MiB, counted after decompression (a compressed bomb
 * stops there too, body-reader.ts), and recorded "too large"; a robots.txt to 500 KiB, its
 * first bytes kept (P17). The time limits (30 s to the headers, 30 s of silence in a body)
 * are the transport's (transport-undici.ts), which can shorten them for tests, never lengthen
 * them. Here the response as it arrived becomes the attempt's answer, with its end time.
 */
export const limits =
  (deps: { clock: Clock }): Step =>
  (next) =>
  async (call) => {
    const startedAt = call.ticket?.kind === "send" ? call.ticket.startedAt : deps.clock.now();
    const reply = await next(call);
    if (reply.kind !== "raw") return reply;
    const res = reply.result;
    const got = { archived: false, replayed: false };
    if (res.kind === "failure") {
      return {
        kind: "answer",
        got: { ...got, answer: { ...res, startedAt, endedAt: deps.clock.now() } },
      };
    }
    const { headers, setCookies } = flattenHeaders(res.headers);
    const robots = call.robotsFor !== undefined;
    const limit = robots ? ROBOTS_READ_LIMIT : MAX_BODY_BYTES;
    const read = await readBody(res.body, headers["content-encoding"], limit, robots);
    // A body the caller's stop cut off is not the site's answer (see send, transport.ts); its
    // row keeps what came.
    if (call.signal?.aborted) throw new CutOff(call.signal.reason, res.status, read.bytes);
    const answer = {
      kind: "response" as const,
      status: res.status,
      headers,
      setCookies,
      read,
      ...(severalLocations(res.headers) ? { severalLocations: true as const } : {}),
      startedAt,
      endedAt: deps.clock.now(),
    };
    return { kind: "answer", got: { ...got, answer } };
  };

/**
 * Location sent more than once with different values (RFC 9110 §10.2.2: one URI-reference):
 * browsers refuse such a redirect (Chrome: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION), and joined
 * with ", " the values make an address nobody wrote.
 */
function severalLocations(raw: Record<string, string | string[] | undefined>): boolean {
  for (const [name, value] of Object.entries(raw)) {
    if (name.toLowerCase() !== "location" || !Array.isArray(value)) continue;
    if (new Set(value.map((v) => v.trim())).size > 1) return true;
  }
  return false;
}

/** Lower-cased names; repeated headers joined with ", ", Set-Cookie kept apart. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>) {
  const headers: Record<string, string> = {};
  let setCookies: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (key === "set-cookie") setCookies = Array.isArray(value) ? value : [value];
    else if (key === "location" && Array.isArray(value) && !severalLocations({ [key]: value })) {
      // The same Location twice is one Location, as a browser reads it (joined it is no URL).
      headers[key] = value[0] ?? "";
    } else headers[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { headers, setCookies };
}
