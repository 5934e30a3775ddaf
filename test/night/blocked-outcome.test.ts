import { describe, expect, it } from "vitest";
import { failureOutcome } from "../../src/night/outcome.js";

describe("a source whose address the checker does not ask (P3)", () => {
  it("P3: its outcome names the address, its class and what allows it (loopback), or that nothing does (link-local)", () => {
    expect(
      failureOutcome({
        kind: "blocked-address",
        url: "http://127.0.0.1:8080/",
        address: "127.0.0.1",
      }),
    ).toEqual({
      kind: "unreachable",
      reason:
        "127.0.0.1 is not a public address (loopback): the checker asks one only with --allow-private-addresses (tests and demos; P3)",
      url: "http://127.0.0.1:8080/",
    });
    expect(
      failureOutcome({
        kind: "blocked-address",
        url: "http://169.254.169.254/",
        address: "169.254.169.254",
      }).reason,
    ).toBe("169.254.169.254 is not a public address (link-local): the checker never asks one (P3)");
  });
});
