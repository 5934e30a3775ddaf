import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import type { Reply } from "../../../src/net/pipeline.js";
import { ROBOTS_READ_LIMIT } from "../../../src/net/robots-answer.js";
import { limits } from "../../../src/net/steps/limits.js";
import { MAX_BODY_BYTES } from "../../../src/policy/constants.js";
import { call, fakeNext } from "./fakes.js";

async function* chunks(chunk: Uint8Array, count: number) {
  for (let i = 0; i < count; i++) yield chunk;
}

const raw = (
  body: AsyncIterable<Uint8Array>,
  headers: Record<string, string | string[]> = {},
): Reply => ({
  kind: "raw",
  result: { kind: "response", status: 200, headers, body },
});

const ticket = {
  kind: "send" as const,
  id: "1",
  night: "n",
  attempt: 1,
  priorAllClosed: false,
  startedAt: 42,
};

describe("step: limits (P14)", () => {
  it("P14: a body stops at 20 MiB, counted after decompression, and is too large", async () => {
    const mib = new Uint8Array(1024 * 1024);
    const step = limits({ clock: new ManualClock() });
    const out = await step(fakeNext(raw(chunks(mib, 21))).next)(call({ ticket }));
    expect(out).toMatchObject({ kind: "answer", got: { answer: { read: { kind: "too-large" } } } });
    const bomb = gzipSync(new Uint8Array(MAX_BODY_BYTES + 1024));
    const zipped = await step(fakeNext(raw(chunks(bomb, 1), { "content-encoding": "gzip" })).next)(
      call(),
    );
    expect(zipped).toMatchObject({ got: { answer: { read: { kind: "too-large" } } } });
  });

  it("P17: a robots.txt is read to its 500 KiB limit, its first bytes kept for the parser", async () => {
    const body = new Uint8Array(600 * 1024).fill(0x23);
    const out = await limits({ clock: new ManualClock() })(fakeNext(raw(chunks(body, 1))).next)(
      call({ robotsFor: "https://www.records.example.gov" }),
    );
    const read =
      out.kind === "answer" && out.got.answer.kind === "response" ? out.got.answer.read : undefined;
    expect(read?.kind).toBe("too-large");
    expect(read?.kind === "too-large" && read.body.byteLength).toBe(ROBOTS_READ_LIMIT);
  });

  it("P27: the attempt starts when admitted and ends when read; headers lower-cased, Set-Cookie apart", async () => {
    const clock = new ManualClock(1_000_000);
    const out = await limits({ clock })(
      fakeNext(
        raw(chunks(new Uint8Array(3), 1), {
          ETag: '"v"',
          "Set-Cookie": ["a=1", "b=2"],
          Vary: ["a", "b"],
        }),
      ).next,
    )(call({ ticket }));
    expect(out).toMatchObject({
      kind: "answer",
      got: {
        archived: false,
        replayed: false,
        answer: {
          kind: "response",
          headers: { etag: '"v"', vary: "a, b" },
          setCookies: ["a=1", "b=2"],
          read: { kind: "complete", bytes: 3 },
          startedAt: 42,
          endedAt: 1_000_000,
        },
      },
    });
    const failed = await limits({ clock })(
      fakeNext({
        kind: "raw",
        result: { kind: "failure", failure: "timeout-headers", message: "late" },
      }).next,
    )(call({ ticket }));
    expect(failed).toMatchObject({
      got: {
        answer: { kind: "failure", failure: "timeout-headers", startedAt: 42, endedAt: 1_000_000 },
      },
    });
  });
});
