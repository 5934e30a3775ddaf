import { afterAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { robots, stall, trickle } from "../fleet/routes.js";

/**
 * The only tests here that really wait: P14 is about wall-clock silence on a socket, which
 * undici measures with real timers. Both run at the true 30 s limit, side by side.
 */
const open: Harness[] = [];
afterAll(async () => {
  await Promise.all(open.map((x) => x.close()));
});
async function realHarness() {
  const h = await harness({ realTime: true, gapMs: 10 });
  open.push(h);
  return h;
}

describe.concurrent("slow servers, real time (P14)", () => {
  it("P14: a body trickled one byte every 10 s succeeds (silence never reaches 30 s)", async () => {
    const h = await realHarness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/slow", trickle("BIDS", 10_000));
    const t0 = Date.now();
    const out = await h.fetcher().fetch({ url: s.url("/slow"), purpose: "page" });
    expect(out.kind).toBe("ok");
    if (out.kind === "ok") expect(new TextDecoder().decode(out.body)).toBe("BIDS");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(39_000);
    expect(s.hits("/slow")).toHaveLength(1);
  }, 70_000);

  it("P14, P15: 31 s of silence mid-body is timed-out, and never retried", async () => {
    const h = await realHarness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/stall", stall("first half, ", 31_000, "second half"));
    const t0 = Date.now();
    const out = await h.fetcher().fetch({ url: s.url("/stall"), purpose: "page" });
    expect(out).toMatchObject({ kind: "timed-out", phase: "body" });
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(29_500);
    expect(took).toBeLessThan(31_000);
    expect(s.hits("/stall")).toHaveLength(1);
    expect(h.ports.log.entries.at(-1)).toMatchObject({ outcome: "timed-out", attempt: 1 });
  }, 70_000);
});
