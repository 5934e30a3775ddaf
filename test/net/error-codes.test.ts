import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/main.js";
import { NorError } from "../../src/errors.js";
import { BlockedAddressError, checkAddress } from "../../src/net/address-guard.js";
import { failureFor, mapBodyError, mapTransportError } from "../../src/net/transport-errors.js";
import { TransportBodyError } from "../../src/net/types.js";

/**
 * The transport's own errors are NorErrors with stable codes: matched on `code`, never on a
 * class name or a message, and turned into the fetcher's outcomes (P3, P14, P15, P21).
 */
describe("the transport's errors in the NorError family", () => {
  it("P3: the address guard's refusal is E_BLOCKED_ADDRESS and reads as blocked-address", () => {
    let thrown: unknown;
    try {
      checkAddress("169.254.169.254", "metadata.example", true);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BlockedAddressError);
    expect(thrown).toBeInstanceOf(NorError);
    const err = thrown as BlockedAddressError;
    expect(err.code).toBe("E_BLOCKED_ADDRESS");
    expect([err.address, err.hostname]).toEqual(["169.254.169.254", "metadata.example"]);
    expect(failureFor(err)).toBe("blocked-address");
    // As undici hands it back: wrapped, the guard's error as the cause.
    const wrapped = new Error("connect failed", { cause: err });
    expect(mapTransportError(wrapped)).toMatchObject({
      kind: "failure",
      failure: "blocked-address",
    });
    expect(exitCodeOf(err)).toBe(1);
  });

  it("P14, P15: a body cut off is E_TRANSPORT_BODY with the failure it stands for", () => {
    const reset = mapBodyError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    expect(reset).toBeInstanceOf(TransportBodyError);
    expect(reset).toBeInstanceOf(NorError);
    expect(reset.code).toBe("E_TRANSPORT_BODY");
    expect(reset.failure).toBe("reset");
    // Anything else that stops a body early is "closed before a full response" (P15).
    expect(mapBodyError(new Error("aborted")).failure).toBe("closed");
    const timeout = new TransportBodyError("timeout-body", "30 s of silence");
    expect(mapBodyError(timeout)).toBe(timeout);
  });
});
