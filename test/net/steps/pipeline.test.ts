import { describe, expect, it } from "vitest";
import { compose, type Step } from "../../../src/net/pipeline.js";
import { send } from "../../../src/net/steps/transport.js";
import type { TransportRequest } from "../../../src/net/types.js";
import { call, ok } from "./fakes.js";

describe("the pipeline", () => {
  it("compose: the first step is the outermost; each sees the call on the way down and the reply on the way up", async () => {
    const seen: string[] = [];
    const step =
      (name: string): Step =>
      (next) =>
      async (c) => {
        seen.push(`${name} down`);
        const reply = await next({ ...c, headers: { ...c.headers, [name]: "1" } });
        seen.push(`${name} up`);
        return reply;
      };
    const handler = compose([step("a"), step("b")], async (c) => {
      seen.push(`last ${Object.keys(c.headers).join(",")}`);
      return ok(c.url);
    });
    await handler(call());
    expect(seen).toEqual(["a down", "b down", "last a,b", "b up", "a up"]);
  });

  it("P1, P3, P5: the transport is handed exactly the method, URL, headers and body the steps made", async () => {
    const sent: TransportRequest[] = [];
    const handler = send(async (req) => {
      sent.push(req);
      return { kind: "failure", failure: "refused", message: "no one there" };
    });
    const reply = await handler(
      call({ method: "POST", body: "q=1", headers: { "user-agent": "x" }, contentType: "ignored" }),
    );
    expect(sent).toEqual([
      {
        method: "POST",
        url: "https://www.records.example.gov/bids",
        headers: { "user-agent": "x" },
        body: "q=1",
      },
    ]);
    expect(reply).toEqual({
      kind: "raw",
      result: { kind: "failure", failure: "refused", message: "no one there" },
    });
  });
});
