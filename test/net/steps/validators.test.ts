import { describe, expect, it } from "vitest";
import { validators } from "../../../src/net/steps/validators.js";
import { call, fakeNext, ok } from "./fakes.js";

describe("step: validators (P12)", () => {
  it("P12: the first request carries its caller's validators", async () => {
    const { next, calls } = fakeNext(ok("x"));
    const lastModified = "Wed, 04 Nov 2026 10:00:00 GMT";
    await validators()(next)(call({ validators: { etag: '"v7"', lastModified } }));
    expect(calls[0]?.validatorsSent).toEqual({ etag: '"v7"', lastModified });
  });

  it("P12: a GET redirect hop asks for its own URL's; a POST hop and empty values send none", async () => {
    const asked: string[] = [];
    const validatorsFor = async (url: string) => {
      asked.push(url);
      return { etag: '"moved"' };
    };
    const { next, calls } = fakeNext(ok("x"));
    const hop = {
      chain: ["https://www.records.example.gov/old"],
      validators: { etag: '"first"' },
      validatorsFor,
    };
    await validators()(next)(call({ ...hop, url: "https://www.records.example.gov/new" }));
    await validators()(next)(call({ ...hop, method: "POST", body: "q=1" }));
    await validators()(next)(call({ validators: { etag: "", lastModified: "" } }));
    expect(calls.map((c) => c.validatorsSent)).toEqual([{ etag: '"moved"' }, undefined, undefined]);
    expect(asked).toEqual(["https://www.records.example.gov/new"]);
  });
});
