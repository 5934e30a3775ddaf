import { describe, expect, it } from "vitest";
import { ClosedSites, closedSite } from "../../../src/net/steps/closed-site.js";
import { call, fakeNext, ok } from "./fakes.js";

describe("step: closed site (P21)", () => {
  it("P21: after a no, nothing more goes to that site tonight; other sites and the next night go on", async () => {
    const closed = new ClosedSites();
    let night = "2026-11-05";
    const { next, calls } = fakeNext((c) => ok(c.url));
    const step = closedSite({ closed, night: () => night })(next);
    closed.close("2026-11-05", "example.gov", "HTTP 403");
    // Another hostname of the same site (P9: the site is the registrable domain).
    expect(await step(call({ url: "https://permits.example.gov/list" }))).toEqual({
      kind: "final",
      outcome: { kind: "site-closed", url: "https://permits.example.gov/list", reason: "HTTP 403" },
    });
    // robots.txt is a request like any other.
    const robots = "https://www.records.example.gov/robots.txt";
    expect(await step(call({ url: robots, robotsFor: "x" }))).toMatchObject({
      outcome: { kind: "site-closed" },
    });
    expect(calls).toHaveLength(0);
    await step(call({ url: "https://www.other.example.org/list" }));
    night = "2026-11-06";
    await step(call());
    expect(calls.map((c) => c.url)).toEqual([
      "https://www.other.example.org/list",
      "https://www.records.example.gov/bids",
    ]);
  });

  it("P21: the first no of the night is the reason kept", () => {
    const closed = new ClosedSites();
    closed.close("2026-11-05", "example.gov", "TLS handshake or certificate check failed");
    closed.close("2026-11-05", "example.gov", "HTTP 403");
    expect(closed.reason("2026-11-05", "example.gov")).toBe(
      "TLS handshake or certificate check failed",
    );
    expect(closed.reason("2026-11-06", "example.gov")).toBeUndefined();
  });
});
