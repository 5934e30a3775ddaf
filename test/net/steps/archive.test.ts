import { describe, expect, it } from "vitest";
import type { StoredAnswer } from "../../../src/net/journal.js";
import { MemoryArchive } from "../../../src/net/memory-ports.js";
import { type Call, NotKept } from "../../../src/net/pipeline.js";
import { archive } from "../../../src/net/steps/archive.js";
import type { ArchivePort } from "../../../src/net/types.js";
import { answered, call, fakeNext, response } from "./fakes.js";

const headers = { "user-agent": "public-records-check/0.1 (+mailto:a@b.org)", accept: "*/*" };

describe("step: archive (P8)", () => {
  it("P8: an answer read in full is kept, with the request as sent, before it goes up", async () => {
    const a = new MemoryArchive();
    const { next } = fakeNext(answered(response(200, { body: "<li>bid</li>" })));
    const out = await archive({ archive: a })(next)(call({ headers, source: "s1" }));
    expect(out).toMatchObject({ kind: "answer", got: { archived: true } });
    expect(a.exchanges).toHaveLength(1);
    expect(a.exchanges[0]).toMatchObject({
      request: { method: "GET", url: "https://www.records.example.gov/bids", headers },
      response: { status: 200 },
      fetchedAt: 1000,
      purpose: "page",
      source: "s1",
    });
    expect(new TextDecoder().decode(a.exchanges[0]?.response.body)).toBe("<li>bid</li>");
  });

  it("P8, P25: a redirect, a cut body and a recheck's answer are not kept", async () => {
    const a = new MemoryArchive();
    for (const [r, over] of [
      [response(302, { headers: { location: "/x" } }), {}],
      [response(200, { read: { kind: "failed", failure: "reset", message: "", bytes: 3 } }), {}],
      [response(200, { body: "x" }), { keepBody: false }],
    ] as const) {
      await archive({ archive: a })(fakeNext(answered(r)).next)(call(over));
    }
    expect(a.exchanges).toEqual([]);
  });

  it("P10: a copy that cannot be written goes up as a failure for the journal, not thrown past it", async () => {
    const full: ArchivePort = {
      write: async () => {
        throw new Error("ENOSPC");
      },
    };
    const out = await archive({ archive: full })(fakeNext(answered(response(200))).next)(call());
    // Said as the archive's failure (the night stops on it), the cause kept.
    expect(out).toMatchObject({ kind: "answer" });
    const failed = out.kind === "answer" ? out.got.failed : undefined;
    expect(failed).toBeInstanceOf(NotKept);
    expect((failed as NotKept).message).toMatch(/could not be kept in the archive \(P8\): ENOSPC/);
    expect((failed as NotKept).cause).toEqual(new Error("ENOSPC"));
  });

  it("P8: tonight's stored answer is rebuilt from the copy, nothing sent; without its copy, asked again", async () => {
    const a = new MemoryArchive();
    await archive({ archive: a })(fakeNext(answered(response(200, { body: "kept" }))).next)(call());
    const stored: StoredAnswer = {
      kind: "response",
      status: 200,
      headers: {},
      setCookies: ["sid=1"],
      source: "s1",
      read: "complete",
      bytes: 4,
      archived: true,
      startedAt: 1000,
      endedAt: 1500,
      attempt: 1,
      priorAllClosed: false,
    };
    const replay = (over: Partial<Call> = {}) =>
      call({ ticket: { kind: "replay", night: "2026-11-05", stored }, ...over });
    const { next, calls } = fakeNext(answered(response(500)));
    const out = await archive({ archive: a })(next)(replay({ source: "s1" }));
    expect(calls).toHaveLength(0);
    expect(out).toMatchObject({
      kind: "answer",
      got: { replayed: true, answer: { setCookies: ["sid=1"] } },
    });
    const body =
      out.kind === "answer" && out.got.answer.kind === "response" ? out.got.answer.read : undefined;
    expect(body?.kind === "complete" && new TextDecoder().decode(body.body)).toBe("kept");
    // P22: another source's check does not get the first one's cookies.
    const other = await archive({ archive: a })(next)(replay({ source: "s2" }));
    expect(other).toMatchObject({ got: { answer: { setCookies: [] } } });
    expect(await archive({ archive: new MemoryArchive() })(next)(replay())).toEqual({
      kind: "unreplayable",
    });
  });
});
