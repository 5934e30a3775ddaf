import { describe, expect, it } from "vitest";
import { urlCheck } from "../../../src/net/steps/url-check.js";
import { call, fakeNext, ok } from "./fakes.js";

describe("step: URL check (P3)", () => {
  it("P3: a URL with user-info is refused; nothing goes further down", async () => {
    const { next, calls } = fakeNext(ok("x"));
    const out = await urlCheck()(next)(call({ url: "https://me:pw@www.records.example.gov/" }));
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "error", status: null } });
    expect(calls).toHaveLength(0);
  });

  it("P3: only http(s) is requested", async () => {
    const { next, calls } = fakeNext(ok("x"));
    const out = await urlCheck()(next)(call({ url: "ftp://records.example.gov/bids" }));
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "error" } });
    expect(calls).toHaveLength(0);
  });

  it("P18, P27: the steps below get the one normal form, and the site cookies go back to (P22)", async () => {
    const { next, calls } = fakeNext(ok("x"));
    await urlCheck()(next)(call({ url: "HTTPS://WWW.Records.Example.gov:443/a/../bids?#top" }));
    expect(calls[0]).toMatchObject({
      url: "https://www.records.example.gov/bids",
      homeSite: "example.gov",
    });
  });

  it("P5: a body goes only with POST", async () => {
    const { next, calls } = fakeNext(ok("x"));
    const out = await urlCheck()(next)(call({ method: "GET", body: "q=1" }));
    expect(out).toMatchObject({ outcome: { reason: "a body is only sent with POST" } });
    expect(calls).toHaveLength(0);
    await urlCheck()(next)(call({ method: "POST", body: "q=1" }));
    expect(calls).toHaveLength(1);
  });
});
