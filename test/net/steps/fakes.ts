import type { AttemptResult, Call, Got, Handler, Reply } from "../../../src/net/pipeline.js";

/**
 * Fakes for testing one step alone: a call as the step above would hand it down, answers as
 * the steps below would hand them up, and a `next` that records what it was given.
 */
export function call(over: Partial<Call> = {}): Call {
  return {
    method: "GET",
    url: "https://www.records.example.gov/bids",
    purpose: "page",
    keepBody: true,
    chain: [],
    headers: {},
    ...over,
  };
}

export function response(
  status: number,
  over: Partial<Extract<AttemptResult, { kind: "response" }>> & { body?: string } = {},
): AttemptResult {
  const { body = "", ...rest } = over;
  const bytes = new TextEncoder().encode(body);
  return {
    kind: "response",
    status,
    headers: {},
    setCookies: [],
    read: { kind: "complete", body: bytes, bytes: bytes.byteLength },
    startedAt: 1000,
    endedAt: 1500,
    ...rest,
  };
}

export function got(answer: AttemptResult, over: Partial<Got> = {}): Got {
  return { answer, archived: false, replayed: false, ...over };
}

/** An answer read, not judged yet (what limits and archive hand up). */
export function answered(answer: AttemptResult, over: Partial<Got> = {}): Reply {
  return { kind: "answer", got: got(answer, over) };
}

/** A `next` that records each call and answers from `reply` (a value, or by call number). */
export function fakeNext(reply: Reply | ((c: Call, n: number) => Reply | Promise<Reply>)) {
  const calls: Call[] = [];
  const next: Handler = async (c) => {
    calls.push(c);
    return typeof reply === "function" ? reply(c, calls.length) : reply;
  };
  return { next, calls };
}

export const ok = (url: string): Reply => ({
  kind: "final",
  outcome: { kind: "ok", url, status: 200, headers: {}, body: new Uint8Array(), chain: [url] },
});
