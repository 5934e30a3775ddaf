import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import { MemoryRobotsCache } from "../../../src/net/memory-ports.js";
import type { Call, Reply } from "../../../src/net/pipeline.js";
import { CrawlDelays, robotsGate } from "../../../src/net/steps/robots-gate.js";
import { ROBOTS_TTL_MS } from "../../../src/policy/constants.js";
import { call, fakeNext, got, ok, response } from "./fakes.js";

const ORIGIN = "https://www.records.example.gov";
const page = call({ url: `${ORIGIN}/bids`, source: "s1" });

const rules = (body: string, over: Partial<Extract<Reply, { kind: "robots" }>> = {}): Reply => ({
  kind: "robots",
  notModified: false,
  entry: { state: "rules", status: 200, body, etag: '"r1"' },
  url: `${ORIGIN}/robots.txt`,
  got: got(response(200, { body })),
  ...over,
});

function gate(robotsReply: Reply | ((c: Call) => Reply | Promise<Reply>), night?: string) {
  const clock = new ManualClock();
  const cache = new MemoryRobotsCache();
  const delays = new CrawlDelays(cache);
  const robots = fakeNext(typeof robotsReply === "function" ? robotsReply : () => robotsReply);
  const pages = fakeNext((c) => ok(c.url));
  const step = robotsGate({
    clock,
    cache,
    delays,
    fetch: robots.next,
    ...(night !== undefined ? { night } : {}),
  })(pages.next);
  return { clock, cache, delays, robots: robots.calls, pages: pages.calls, step };
}

describe("step: robots gate (P16, P18, P20)", () => {
  it("P18: a disallowed path is never passed down; robots.txt is asked through the pipeline, as a robots.txt request", async () => {
    const g = gate(rules("User-agent: *\nDisallow: /bids\n"));
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "disallowed", url: page.url } });
    expect(g.pages).toHaveLength(0);
    expect(g.robots).toEqual([
      expect.objectContaining({
        url: `${ORIGIN}/robots.txt`,
        purpose: "robots",
        robotsFor: ORIGIN,
        source: "s1",
        accept: "text/plain, */*;q=0.5",
        chain: [],
      }),
    ]);
  });

  it("P18: robots.txt itself passes the gate (it is not judged by itself)", async () => {
    const g = gate(rules("User-agent: *\nDisallow: /\n"));
    await g.step(call({ url: `${ORIGIN}/robots.txt`, purpose: "robots", robotsFor: ORIGIN }));
    expect(g.robots).toHaveLength(0);
    expect(g.pages).toHaveLength(1);
  });

  it("P16: read once a day and cached; concurrent requests share one read", async () => {
    const g = gate(rules("User-agent: *\nAllow: /\n"));
    await Promise.all([g.step(page), g.step(call({ url: `${ORIGIN}/other` }))]);
    await g.clock.advance(ROBOTS_TTL_MS - 1);
    await g.step(page);
    expect(g.robots).toHaveLength(1);
    expect(g.pages).toHaveLength(3);
    await g.clock.advance(1);
    await g.step(page);
    expect(g.robots).toHaveLength(2);
    // P12: the stored validators go with the refresh.
    expect(g.robots[1]?.validators).toEqual({ etag: '"r1"' });
  });

  it("P16: a 304 to our validators refreshes the stored copy", async () => {
    let n = 0;
    const g = gate(() =>
      ++n === 1
        ? rules("User-agent: *\nDisallow: /bids\n")
        : rules("", { notModified: true, entry: { state: "unreachable", status: 304 } }),
    );
    await g.step(page);
    await g.clock.advance(ROBOTS_TTL_MS);
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "disallowed" } });
    expect((await g.cache.get(ORIGIN))?.fetchedAt).toBe(g.clock.now());
  });

  it("P20: what could not be read (a bad redirect, every attempt interrupted) is unreachable for the night: not sent", async () => {
    const g = gate(
      {
        kind: "final",
        outcome: {
          kind: "error",
          url: `${ORIGIN}/robots.txt`,
          status: 301,
          reason: "redirect to a bad Location",
        },
      },
      "2026-11-05",
    );
    expect(await g.step(page)).toMatchObject({
      outcome: { kind: "robots-unavailable", origin: ORIGIN },
    });
    expect(await g.cache.get(ORIGIN)).toMatchObject({
      state: "unreachable",
      night: "2026-11-05",
      reason: "redirect to a bad Location",
    });
    await g.step(page);
    expect(g.robots).toHaveLength(1);
    expect(g.pages).toHaveLength(0);
  });

  it("P21: a no on robots.txt is the page's answer, and nothing is cached", async () => {
    const g = gate({
      kind: "final",
      outcome: {
        kind: "refused",
        url: `${ORIGIN}/robots.txt`,
        status: 403,
        reason: "cloudflare challenge: cf-mitigated",
        evidence: { provider: "cloudflare", verdict: "challenge" },
      },
    });
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "refused", url: page.url } });
    expect(await g.cache.get(ORIGIN)).toBeUndefined();
    expect(g.pages).toHaveLength(0);
  });

  it("P13, P21: the deadline or a closed site met by the robots.txt request stops the page too", async () => {
    const g = gate({ kind: "final", outcome: { kind: "deadline", url: `${ORIGIN}/robots.txt` } });
    expect(await g.step(page)).toEqual({
      kind: "final",
      outcome: { kind: "deadline", url: page.url },
    });
    expect(g.pages).toHaveLength(0);
  });

  it("P11, P16: the file a redirect reached at another origin's /robots.txt is cached for it too", async () => {
    const g = gate(
      rules("User-agent: *\nAllow: /\n", { url: "https://cdn.example.org/robots.txt" }),
    );
    await g.step(page);
    expect((await g.cache.get("https://cdn.example.org"))?.state).toBe("rules");
  });

  it("P10: the Crawl-delay of the verdict governs the origin's gap; a stored one governs before", async () => {
    const g = gate(rules("User-agent: *\nCrawl-delay: 7\n"));
    await g.cache.put({
      origin: ORIGIN,
      fetchedAt: g.clock.now() - ROBOTS_TTL_MS,
      state: "rules",
      status: 200,
      body: "User-agent: *\nCrawl-delay: 9\n",
    });
    expect(await g.delays.of(page.url)).toBe(9000);
    await g.step(page);
    expect(await g.delays.of(page.url)).toBe(7000);
    expect(await g.delays.of("https://other.example.org/")).toBe(0);
  });
});
