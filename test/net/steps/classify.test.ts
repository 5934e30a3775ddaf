import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import type { Call, Reply, Ticket } from "../../../src/net/pipeline.js";
import { classify } from "../../../src/net/steps/classify.js";
import { answered, call, fakeNext, response } from "./fakes.js";

const step = classify({ clock: new ManualClock() });
const sent = (attempt: number, priorAllClosed = false): Ticket => ({
  kind: "send",
  id: "1",
  night: "2026-11-05",
  attempt,
  priorAllClosed,
  startedAt: 0,
});
const judge = async (reply: Reply, over: Partial<Call> = {}) =>
  step(fakeNext(reply).next)(call({ ticket: sent(1), ...over }));

const ROBOTS = "https://www.records.example.gov/robots.txt";
const robotsCall = (over: Partial<Call> = {}): Partial<Call> => ({
  url: ROBOTS,
  purpose: "robots",
  robotsFor: "https://www.records.example.gov",
  ...over,
});

describe("step: classify (P15, P21)", () => {
  it("P15: a 503 on the first attempt is a retry after 5 s; on the third it is final", async () => {
    expect(await judge(answered(response(503)))).toMatchObject({
      kind: "retry",
      waitMs: 5000,
      got: { judged: { label: "retry", final: false, retryWaitMs: 5000 } },
    });
    expect(await judge(answered(response(503)), { ticket: sent(3) })).toMatchObject({
      kind: "final",
      outcome: { kind: "error", status: 503 },
      got: { judged: { label: "error", final: true } },
    });
  });

  it("P21: a 403 is a no that closes the site, with its evidence", async () => {
    expect(await judge(answered(response(403)))).toMatchObject({
      kind: "final",
      outcome: { kind: "refused", status: 403 },
      got: {
        judged: { label: "refused", closeSite: expect.any(String), evidence: { provider: "http" } },
      },
    });
  });

  it("P19, P12: a redirect goes up to be followed; a 200 is ok with its chain", async () => {
    expect(await judge(answered(response(301, { headers: { location: "/new" } })))).toMatchObject({
      kind: "redirect",
      status: 301,
      location: "/new",
    });
    const chain = ["https://www.records.example.gov/old"];
    expect(await judge(answered(response(200, { body: "x" })), { chain })).toMatchObject({
      kind: "final",
      outcome: { kind: "ok", chain: [...chain, "https://www.records.example.gov/bids"] },
    });
  });

  it("P20: a robots.txt answer is what its origin's cache keeps, never retried", async () => {
    const rules = await judge(
      answered(response(200, { body: "User-agent: *\nDisallow: /x\n" })),
      robotsCall(),
    );
    expect(rules).toMatchObject({
      kind: "robots",
      notModified: false,
      entry: { state: "rules", body: "User-agent: *\nDisallow: /x\n" },
      url: ROBOTS,
      got: { judged: { label: "rules", final: true } },
    });
    expect(await judge(answered(response(403)), robotsCall())).toMatchObject({
      kind: "robots",
      entry: { state: "allow-all" },
    });
    expect(await judge(answered(response(503)), robotsCall())).toMatchObject({
      kind: "robots",
      entry: { state: "unreachable" },
      got: { judged: { label: "unreachable", final: true } },
    });
  });

  it("P20: a robots.txt redirect is followed up to five times; the sixth hop is unreachable", async () => {
    const moved = answered(response(301, { headers: { location: "/r" } }));
    expect(await judge(moved, robotsCall({ chain: ["1", "2", "3", "4"] }))).toMatchObject({
      kind: "redirect",
    });
    expect(await judge(moved, robotsCall({ chain: ["1", "2", "3", "4", "5"] }))).toMatchObject({
      kind: "robots",
      entry: { state: "unreachable", reason: "more than 5 redirects" },
    });
  });

  it("P16: a 304 to our validators keeps the stored copy; an unasked-for 304 is no answer", async () => {
    const conditional = robotsCall({ validatorsSent: { etag: '"r1"' } });
    expect(await judge(answered(response(304)), conditional)).toMatchObject({
      kind: "robots",
      notModified: true,
      got: { judged: { label: "not-modified" } },
    });
    expect(await judge(answered(response(304)), robotsCall())).toMatchObject({
      kind: "robots",
      notModified: false,
      entry: { state: "unreachable" },
    });
  });

  it("P21: a challenge page served as robots.txt is a no, with evidence, and closes the site", async () => {
    const challenge = response(403, {
      headers: { "cf-mitigated": "challenge", server: "cloudflare", "content-type": "text/html" },
      body: "<html><title>Just a moment...</title></html>",
    });
    expect(await judge(answered(challenge), robotsCall())).toMatchObject({
      kind: "final",
      outcome: { kind: "refused", url: ROBOTS, evidence: { provider: "cloudflare" } },
      got: { judged: { label: "refused", closeSite: expect.stringContaining("cloudflare") } },
    });
  });

  it("P8: a replayed answer is judged with the attempt it answered", async () => {
    const stored = {
      kind: "failure" as const,
      failure: "reset" as const,
      message: "",
      startedAt: 0,
      endedAt: 0,
      attempt: 3,
      priorAllClosed: true,
    };
    const out = await judge(answered({ ...stored }), {
      ticket: { kind: "replay", night: "2026-11-05", stored },
    });
    expect(out).toMatchObject({
      kind: "final",
      outcome: { kind: "refused", reason: "connection closed on every attempt" },
    });
  });

  it("passes up what it does not judge: replies with an outcome, an answer a step below could not keep", async () => {
    const closed: Reply = { kind: "final", outcome: { kind: "deadline", url: "x" } };
    expect(await judge(closed)).toBe(closed);
    const failed = answered(response(200), { failed: new Error("ENOSPC") });
    expect(await judge(failed)).toBe(failed);
  });
});
