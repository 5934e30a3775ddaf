import { afterEach, describe, expect, it } from "vitest";
import { createUndiciTransport, type UndiciTransport } from "../../src/net/transport-undici.js";
import { type Harness, harness } from "../fleet/harness.js";
import { hang, robots, stall, trickle } from "../fleet/routes.js";

/**
 * P14 is about wall-clock silence on a socket, which undici measures with real timers. These
 * run the real transport on loopback with its limits shortened (never lengthened): SILENCE
 * stands for the 30 s silence limit, TOTAL for the 30 s whole-body limit. Nothing here
 * measures elapsed time; the servers record what they saw.
 */
const SILENCE = 1_200;
const TOTAL = 3_000;
/** The trickle's pace: far enough under SILENCE that a busy 2-core machine never reaches it. */
const DRIP = 150;

let h: Harness | undefined;
let t: UndiciTransport | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await h?.close();
  h = undefined;
});

async function slowSetup() {
  h = await harness();
  t = createUndiciTransport({
    allowPrivateAddresses: true,
    headersTimeoutMs: SILENCE,
    bodyTimeoutMs: SILENCE,
    bodyTotalMs: TOTAL,
  });
  const s = await h.fleet.server();
  s.route("/robots.txt", robots(""));
  return { h, s, f: h.fetcher({ transport: t }) };
}

describe("slow servers (P14, P15)", () => {
  it("P14: a body trickled one byte every DRIP (SILENCE/8) succeeds (silence never reaches the limit)", async () => {
    const { s, f } = await slowSetup();
    s.route("/slow", trickle("BIDS", DRIP));
    const out = await f.fetch({ url: s.url("/slow"), purpose: "page" });
    expect(out.kind).toBe("ok");
    if (out.kind === "ok") expect(new TextDecoder().decode(out.body)).toBe("BIDS");
    expect(s.hits("/slow")).toHaveLength(1);
    expect(s.hits("/slow")[0]?.endedAt).not.toBeNaN();
  });

  it("P14, P15: silence past the limit mid-body is timed-out, logged with what was read, and never retried", async () => {
    const { h, s, f } = await slowSetup();
    // Silent for longer than TOTAL: only the silence limit can end it first.
    s.route("/stall", stall("first half, ", 2 * TOTAL, "second half"));
    const out = await f.fetch({ url: s.url("/stall"), purpose: "page" });
    expect(out).toMatchObject({ kind: "timed-out", phase: "body" });
    expect(s.hits("/stall")).toHaveLength(1);
    expect(h.ports.log.entries.at(-1)).toMatchObject({
      outcome: "timed-out",
      attempt: 1,
      bytes: "first half, ".length,
    });
    // The silence limit ended it, not the whole-body one.
    expect(h.ports.log.entries.at(-1)?.failure).toMatch(/^timeout-body: /);
    expect(h.ports.log.entries.at(-1)?.failure).not.toMatch(/not complete within/);
  });

  it("P14, P15: a server that never answers is timed-out waiting for the headers, and never retried", async () => {
    const { h, s, f } = await slowSetup();
    s.route("/hang", hang);
    const out = await f.fetch({ url: s.url("/hang"), purpose: "page" });
    expect(out).toMatchObject({ kind: "timed-out", phase: "headers" });
    expect(s.hits("/hang")).toHaveLength(1);
    expect(h.ports.log.entries.at(-1)).toMatchObject({ outcome: "timed-out", attempt: 1 });
  });
});
