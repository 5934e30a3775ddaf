import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import { MemoryRobotsCache } from "../../../src/net/memory-ports.js";
import { type Call, NotHeld, type Reply } from "../../../src/net/pipeline.js";
import { CrawlDelays, robotsGate } from "../../../src/net/steps/robots-gate.js";
import { ROBOTS_REREAD_AFTER_MS, ROBOTS_TTL_MS } from "../../../src/policy/constants.js";
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

function gate(
  robotsReply: Reply | ((c: Call) => Reply | Promise<Reply>),
  night?: string,
  start?: number,
) {
  const clock = new ManualClock(start);
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
  it("P10: an origin's Crawl-delay is read from the store again while none is known here: one another process stored meanwhile counts from then on", async () => {
    const cache = new MemoryRobotsCache();
    const delays = new CrawlDelays(cache);
    expect(await delays.of(`${ORIGIN}/robots.txt`)).toBe(0);
    await cache.put({
      origin: ORIGIN,
      fetchedAt: 0,
      state: "rules",
      status: 200,
      body: "User-agent: *\nCrawl-delay: 30\n",
    });
    expect(await delays.of(`${ORIGIN}/robots.txt`)).toBe(30_000);
    // Once known (the store's, or a verdict the robots gate reached), it is kept: no read.
    await cache.put({ origin: ORIGIN, fetchedAt: 0, state: "allow-all", status: 404 });
    expect(await delays.of(`${ORIGIN}/bids`)).toBe(30_000);
  });

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

  it("P8, P9: the robots.txt read carries its asker's hold on its work; a read shared with another lane's request that lost its hold is read again for the request that still holds its own", async () => {
    // The fetch below the gate: a robots.txt request whose hold is gone throws NotHeld before
    // anything is sent, as the site gate does.
    const sent: Call[] = [];
    const g = gate(async (c) => {
      if (c.held !== undefined && !(await c.held())) throw new NotHeld(c.url);
      sent.push(c);
      return rules("User-agent: *\nAllow: /\n");
    });
    const lost = async () => false;
    const mine = async () => true;
    // Alone, the lost one sends nothing and hears NotHeld.
    await expect(g.step({ ...page, held: lost })).rejects.toBeInstanceOf(NotHeld);
    expect(sent).toHaveLength(0);
    // Together: the read started by the lost one is shared; the other reads again, once.
    const [a, b] = await Promise.allSettled([
      g.step({ ...page, held: lost }),
      g.step(call({ url: `${ORIGIN}/other`, held: mine })),
    ]);
    expect(a).toMatchObject({ status: "rejected", reason: expect.any(NotHeld) });
    expect(b).toMatchObject({ status: "fulfilled" });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.held).toBe(mine);
    expect(g.pages.map((c) => c.url)).toEqual([`${ORIGIN}/other`]);
  });

  it("P8, P9: a request that holds its own lane gets its robots.txt read even when the shared reads it joined were lost to three other lanes' holds in a row (not a NotHeld of its own)", async () => {
    const sent: Call[] = [];
    const g = gate(async (c) => {
      if (c.held !== undefined && !(await c.held())) throw new NotHeld(c.url);
      sent.push(c);
      return rules("User-agent: *\nAllow: /\n");
    });
    // Lanes whose hold says yes when asked whether to read again, and no once the read they
    // started asks it (each lost in between, as a lane whose lease lapsed is).
    const flips = (answers: boolean[]) => async () => answers.shift() ?? false;
    const l1 = flips([false]);
    const l2 = flips([true, false]);
    const l3 = flips([true, true, false]);
    const mine = async () => true;
    const [a, b, c, d] = await Promise.allSettled([
      g.step({ ...page, held: l1 }),
      g.step(call({ url: `${ORIGIN}/b`, held: l2 })),
      g.step(call({ url: `${ORIGIN}/c`, held: l3 })),
      g.step(call({ url: `${ORIGIN}/mine`, held: mine })),
    ]);
    for (const lost of [a, b, c])
      expect(lost).toMatchObject({ status: "rejected", reason: expect.any(NotHeld) });
    expect(d).toMatchObject({ status: "fulfilled" });
    expect(sent.map((x) => x.held)).toEqual([mine]);
    expect(g.pages.map((x) => x.url)).toEqual([`${ORIGIN}/mine`]);
  });

  it("P11, P16: requests that hold their lanes, left after the shared reads they joined were lost to other lanes' holds, and one that comes meanwhile, read robots.txt once between them", async () => {
    const sent: Call[] = [];
    let release: () => void = () => {};
    const g = gate(async (c) => {
      if (c.held !== undefined && !(await c.held())) throw new NotHeld(c.url);
      sent.push(c);
      // The answer takes a while: others ask meanwhile.
      await new Promise<void>((r) => {
        release = r;
      });
      return rules("User-agent: *\nAllow: /\n");
    });
    const flips = (answers: boolean[]) => async () => answers.shift() ?? false;
    const l1 = flips([false]);
    const l2 = flips([true, false]);
    const mine = async () => true;
    const also = async () => true;
    const first = Promise.allSettled([
      g.step({ ...page, held: l1 }),
      g.step(call({ url: `${ORIGIN}/b`, held: l2 })),
      g.step(call({ url: `${ORIGIN}/mine`, held: mine })),
      g.step(call({ url: `${ORIGIN}/also`, held: also })),
    ]);
    // Bounded: until a robots.txt request is on its way.
    for (let i = 0; i < 1_000 && sent.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(1);
    // A request that comes while that read is on its way.
    const later = Promise.allSettled([g.step(call({ url: `${ORIGIN}/later`, held: mine }))]);
    for (let i = 0; i < 1_000; i++) {
      release();
      await new Promise((r) => setImmediate(r));
    }
    const [a, b, c, d, e] = [...(await first), ...(await later)];
    for (const lost of [a, b])
      expect(lost).toMatchObject({ status: "rejected", reason: expect.any(NotHeld) });
    for (const kept of [c, d, e]) expect(kept).toMatchObject({ status: "fulfilled" });
    expect(sent).toHaveLength(1);
    expect(g.pages.map((x) => x.url).sort()).toEqual(
      [`${ORIGIN}/also`, `${ORIGIN}/later`, `${ORIGIN}/mine`].sort(),
    );
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
    expect(g.pages).toHaveLength(3);
    await g.clock.advance(1);
    await g.step(page);
    expect(g.robots).toHaveLength(2);
    // P12: the stored validators go with the refresh.
    expect(g.robots[1]?.validators).toEqual({ etag: '"r1"' });
  });

  it("P16: the copy's expiry goes down with the request; a send the site gate found past it (robots-stale) is decided again on robots.txt read again; a copy stale pass after pass is not sent tonight", async () => {
    const clock = new ManualClock(0);
    const cache = new MemoryRobotsCache();
    const robots = fakeNext(() => rules("User-agent: *\nAllow: /\n"));
    // Below the gate: the day is up by the time the request would leave, `stale` times.
    let stale = 1;
    const pages = fakeNext(async (c) => {
      if (stale > 0) {
        stale--;
        await clock.advance(Math.max(0, (c.robotsServesUntil ?? 0) - clock.now()));
        return { kind: "robots-stale" };
      }
      return ok(c.url);
    });
    const step = robotsGate({ clock, cache, delays: new CrawlDelays(cache), fetch: robots.next })(
      pages.next,
    );
    await clock.advance(1000);
    expect(await step(page)).toMatchObject({ outcome: { kind: "ok" } });
    expect(pages.calls.map((c) => c.robotsServesUntil)).toEqual([
      1000 + ROBOTS_TTL_MS,
      1000 + 2 * ROBOTS_TTL_MS,
    ]);
    expect(robots.calls).toHaveLength(2);
    // A clock gone wrong: stale on every pass. Bounded, and never an answer of the site's.
    stale = 100;
    const out = await step(page);
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "deadline", url: page.url } });
    expect(robots.calls.length).toBeLessThanOrEqual(2 + 3);
    expect(stale).toBe(97);
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

  it("P16, P11: each night reads the file once, afresh: last night's copy, not yet a day old, is asked again with its validators; within a night (or the hour after a read) it serves", async () => {
    const clock = new ManualClock();
    const cache = new MemoryRobotsCache();
    let n = 0;
    const robots = fakeNext(() =>
      ++n === 1
        ? rules("User-agent: *\nDisallow: /x\n")
        : rules("", { notModified: true, entry: { state: "unreachable", status: 304 } }),
    );
    const pages = fakeNext((c) => ok(c.url));
    const nightOf = (night: string) =>
      robotsGate({ clock, cache, delays: new CrawlDelays(cache), fetch: robots.next, night })(
        pages.next,
      );
    const night1 = nightOf("2026-11-05");
    await night1(page);
    expect((await cache.get(ORIGIN))?.night).toBe("2026-11-05");
    // Later the same night, and the same night resumed by another process: the copy serves.
    await clock.advance(5 * 60 * 60 * 1000);
    await night1(page);
    await nightOf("2026-11-05")(page);
    expect(robots.calls).toHaveLength(1);
    // A night begun within the hour after the read (two commands back to back): it serves too.
    const soon = gate(rules("User-agent: *\nAllow: /\n"), "2026-11-05");
    await soon.step(page);
    await soon.clock.advance(ROBOTS_REREAD_AFTER_MS - 1);
    const next = robotsGate({
      clock: soon.clock,
      cache: soon.cache,
      delays: new CrawlDelays(soon.cache),
      fetch: robots.next,
      night: "2026-11-06",
    })(pages.next);
    await next(page);
    expect(robots.calls).toHaveLength(1);
    // The next night, the copy a little less than a day old: read again, conditionally; the 304
    // makes it tonight's copy, which then serves the rest of the night.
    await clock.advance(ROBOTS_TTL_MS - 5 * 60 * 60 * 1000 - 60_000);
    const night2 = nightOf("2026-11-06");
    expect(await night2(page)).toMatchObject({ outcome: { kind: "ok" } });
    expect(robots.calls).toHaveLength(2);
    expect(robots.calls[1]?.validators).toEqual({ etag: '"r1"' });
    expect(await cache.get(ORIGIN)).toMatchObject({ night: "2026-11-06", fetchedAt: clock.now() });
    await clock.advance(2 * ROBOTS_REREAD_AFTER_MS);
    expect(await night2(call({ url: `${ORIGIN}/x/1` }))).toMatchObject({
      outcome: { kind: "disallowed" },
    });
    expect(robots.calls).toHaveLength(2);
  });

  it("P16, P11: a copy read within the hour before a night serves that whole night: two commands run one after the other ask once, not again an hour into the night", async () => {
    const clock = new ManualClock();
    const cache = new MemoryRobotsCache();
    const robots = fakeNext(() => rules("User-agent: *\nAllow: /\n"));
    const pages = fakeNext((c) => ok(c.url));
    const gateOf = (night?: string) =>
      robotsGate({
        clock,
        cache,
        delays: new CrawlDelays(cache),
        fetch: robots.next,
        ...(night !== undefined ? { night } : {}),
      })(pages.next);
    // `nor discover` outside a night reads the file; the night begins half an hour later.
    await gateOf()(page);
    expect(robots.calls).toHaveLength(1);
    await clock.advance(30 * 60 * 1000);
    const night = gateOf("2026-11-05");
    await night(page);
    // Its lane goes on at the site for two hours: the copy is tonight's, not asked again.
    await clock.advance(2 * ROBOTS_REREAD_AFTER_MS);
    await night(call({ url: `${ORIGIN}/later` }));
    expect(robots.calls).toHaveLength(1);
    // Nor by the same night resumed in another process.
    await gateOf("2026-11-05")(page);
    expect(robots.calls).toHaveLength(1);
    // The next night reads it again; and no copy serves past a day.
    await clock.advance(20 * 60 * 60 * 1000);
    await gateOf("2026-11-06")(page);
    expect(robots.calls).toHaveLength(2);
    await clock.advance(ROBOTS_TTL_MS);
    await gateOf("2026-11-06")(page);
    expect(robots.calls).toHaveLength(3);
  });

  it("P16: at most once a day: a copy read earlier the same New York day (nor discover's, that morning) serves that day's night at 22:00, not read again; a copy of the day before is read again, and none serves once a day old", async () => {
    const hour = 60 * 60 * 1000;
    // 10:00 in New York on 6 December 2026 (EST, UTC-5): nor discover, no night under way.
    const g = gate(rules("User-agent: *\nAllow: /\n"), undefined, Date.UTC(2026, 11, 6, 15, 0));
    await g.step(page);
    expect(g.robots).toHaveLength(1);
    let reads = 0;
    const counting = (night: string) =>
      robotsGate({
        clock: g.clock,
        cache: g.cache,
        delays: new CrawlDelays(g.cache),
        fetch: async () => {
          reads++;
          return rules("User-agent: *\nAllow: /\n");
        },
        night,
      })(fakeNext((c) => ok(c.url)).next);
    // 22:00 the same day: that day's night goes by the 10:00 copy (12 hours old), made its own.
    await g.clock.advance(12 * hour);
    expect(await counting("2026-12-06")(page)).toMatchObject({ outcome: { kind: "ok" } });
    expect(reads).toBe(0);
    expect(await g.cache.get(ORIGIN)).toMatchObject({ night: "2026-12-06" });
    // Past midnight, the same night: still its copy (14 hours old).
    await g.clock.advance(2.5 * hour);
    await counting("2026-12-06")(page);
    expect(reads).toBe(0);
    // The next day's night at 22:00: the copy is 36 hours old, read again.
    await g.clock.advance(21.5 * hour);
    await counting("2026-12-07")(page);
    expect(reads).toBe(1);
    // A copy read late the day before (23:30) is read again by a night begun at 02:00.
    const late = gate(rules("User-agent: *\nAllow: /\n"), undefined, Date.UTC(2026, 11, 8, 4, 30));
    await late.step(page);
    await late.clock.advance(2.5 * hour);
    reads = 0;
    await robotsGate({
      clock: late.clock,
      cache: late.cache,
      delays: new CrawlDelays(late.cache),
      fetch: async () => {
        reads++;
        return rules("User-agent: *\nAllow: /\n");
      },
      night: "2026-12-08",
    })(fakeNext((c) => ok(c.url)).next)(page);
    expect(reads).toBe(1);
  });

  it("P16, P18: a copy dated in the future (written while a clock ran ahead) is read again, not taken as fresh until that clock is caught up", async () => {
    const g = gate(rules("User-agent: *\nDisallow: /bids\n"), "2026-11-05");
    await g.cache.put({
      origin: ORIGIN,
      fetchedAt: g.clock.now() + 3 * ROBOTS_TTL_MS,
      state: "rules",
      status: 200,
      body: "User-agent: *\nAllow: /\n",
      night: "2026-11-04",
    });
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "disallowed" } });
    // Outside a night too.
    const h = gate(rules("User-agent: *\nDisallow: /bids\n"));
    await h.cache.put({
      origin: ORIGIN,
      fetchedAt: h.clock.now() + ROBOTS_TTL_MS,
      state: "rules",
      status: 200,
      body: "User-agent: *\nAllow: /\n",
    });
    expect(await h.step(page)).toMatchObject({ outcome: { kind: "disallowed" } });
    expect(h.robots).toHaveLength(1);
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
    expect(g.pages).toHaveLength(0);
  });

  it("P20: outside a night (nor discover), an unreachable robots.txt a night found holds for the rest of that day: not asked again; the next day it is; one found outside a night holds for that day's nights (P16)", async () => {
    const unreachable: Reply = {
      kind: "final",
      outcome: { kind: "error", url: `${ORIGIN}/robots.txt`, status: 503, reason: "HTTP 503" },
    };
    // Found at 03:00 New York time by the night of 2026-11-05; discover runs at 15:00.
    const g = gate(unreachable, undefined, Date.UTC(2026, 10, 5, 8, 0, 0));
    await g.cache.put({
      origin: ORIGIN,
      fetchedAt: g.clock.now(),
      state: "unreachable",
      status: 503,
      reason: "HTTP 503",
      night: "2026-11-05",
    });
    await g.clock.advance(12 * 60 * 60 * 1000);
    expect(await g.step(page)).toMatchObject({
      outcome: { kind: "robots-unavailable", origin: ORIGIN },
    });
    expect(g.robots).toHaveLength(0);
    expect(g.pages).toHaveLength(0);
    // Past midnight in New York the day is over: asked again (and, unreachable still, it now
    // holds for the new day, found outside a night).
    const h = gate(unreachable, undefined, Date.UTC(2026, 10, 6, 5, 30, 0));
    await h.cache.put({ ...(await g.cache.get(ORIGIN))! });
    await h.step(page);
    expect(h.robots).toHaveLength(1);
    expect(await h.cache.get(ORIGIN)).toMatchObject({ state: "unreachable" });
    expect((await h.cache.get(ORIGIN))?.night).toBeUndefined();
    const later = gate(unreachable, undefined, Date.UTC(2026, 10, 6, 20, 0, 0));
    await later.cache.put({ ...(await h.cache.get(ORIGIN))! });
    expect(await later.step(page)).toMatchObject({ outcome: { kind: "robots-unavailable" } });
    expect(later.robots).toHaveLength(0);
    // P16, at most once a day: the night of that date goes by it, not asked again (until
    // 2026-12-06 it asked again, a second read that day), and neither is a past night caught
    // up that day; the next day's night asks.
    const night = gate(unreachable, "2026-11-06", Date.UTC(2026, 10, 6, 21, 0, 0));
    await night.cache.put({ ...(await h.cache.get(ORIGIN))! });
    expect(await night.step(page)).toMatchObject({
      outcome: { kind: "robots-unavailable", origin: ORIGIN },
    });
    expect(night.robots).toHaveLength(0);
    expect(night.pages).toHaveLength(0);
    const caughtUp = gate(unreachable, "2026-11-04", Date.UTC(2026, 10, 6, 21, 0, 0));
    await caughtUp.cache.put({ ...(await h.cache.get(ORIGIN))! });
    expect(await caughtUp.step(page)).toMatchObject({ outcome: { kind: "robots-unavailable" } });
    expect(caughtUp.robots).toHaveLength(0);
    const next = gate(unreachable, "2026-11-07", Date.UTC(2026, 10, 8, 3, 0, 0));
    await next.cache.put({ ...(await h.cache.get(ORIGIN))! });
    await next.step(page);
    expect(next.robots).toHaveLength(1);
  });

  it("P16, P20: a night that went by an unreachable robots.txt another command found that day keeps off the origin the whole night, past midnight too", async () => {
    const unreachable: Reply = {
      kind: "final",
      outcome: { kind: "error", url: `${ORIGIN}/robots.txt`, status: 503, reason: "HTTP 503" },
    };
    // A past night caught up at 23:30 New York time on 2026-11-06; nor discover found robots.txt
    // unreachable at 10:00 that day.
    const g = gate(unreachable, "2026-11-04", Date.UTC(2026, 10, 7, 4, 30, 0));
    await g.cache.put({
      origin: ORIGIN,
      fetchedAt: Date.UTC(2026, 10, 6, 15, 0, 0),
      state: "unreachable",
      status: 503,
      reason: "HTTP 503",
    });
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "robots-unavailable" } });
    // 00:30 the next day, the night still under way: still off the origin, nothing asked.
    await g.clock.advance(60 * 60 * 1000);
    expect(await g.step(page)).toMatchObject({ outcome: { kind: "robots-unavailable" } });
    expect(g.robots).toHaveLength(0);
    expect(g.pages).toHaveLength(0);
  });

  it("P20, P16: a past night that went by an unreachable robots.txt nor discover found that day stays off the origin in its other processes too (resumed past midnight, a second worker): not asked again, no page sent, though the file now answers", async () => {
    const unreachable: Reply = {
      kind: "final",
      outcome: { kind: "error", url: `${ORIGIN}/robots.txt`, status: 503, reason: "HTTP 503" },
    };
    // nor discover found robots.txt unreachable at 10:00 New York time on 2026-11-06; the night
    // of 2026-11-04, caught up, goes by it at 23:30 and records its no for a source there.
    const a = gate(unreachable, "2026-11-04", Date.UTC(2026, 10, 7, 4, 30, 0));
    await a.cache.put({
      origin: ORIGIN,
      fetchedAt: Date.UTC(2026, 10, 6, 15, 0, 0),
      state: "unreachable",
      status: 503,
      reason: "HTTP 503",
    });
    expect(await a.step(page)).toMatchObject({ outcome: { kind: "robots-unavailable" } });
    expect(a.robots).toHaveLength(0);
    // 00:30 the next day: the same night, in another process (resumed after a crash, or a
    // second worker) over the same store; robots.txt would now allow everything.
    const b = gate(
      rules("User-agent: *\nAllow: /\n"),
      "2026-11-04",
      Date.UTC(2026, 10, 7, 5, 30, 0),
    );
    await b.cache.put({ ...(await a.cache.get(ORIGIN))! });
    expect(await b.step(call({ url: `${ORIGIN}/minutes`, source: "s2" }))).toMatchObject({
      outcome: { kind: "robots-unavailable", origin: ORIGIN },
    });
    expect(b.robots).toHaveLength(0);
    expect(b.pages).toHaveLength(0);
  });

  it("P16: an allowed copy nor discover read that morning serves a past night caught up that afternoon (no second read that day), the whole night, past midnight too, in its other processes too", async () => {
    const allow = rules("User-agent: *\nAllow: /\n");
    // Read by nor discover at 10:00 New York time on 2026-11-06.
    const copy = {
      origin: ORIGIN,
      fetchedAt: Date.UTC(2026, 10, 6, 15, 0, 0),
      state: "rules" as const,
      status: 200,
      body: "User-agent: *\nAllow: /\n",
    };
    // 14:00: the night of 2026-11-05, caught up.
    const a = gate(allow, "2026-11-05", Date.UTC(2026, 10, 6, 19, 0, 0));
    await a.cache.put(copy);
    expect(await a.step(page)).toMatchObject({ outcome: { kind: "ok" } });
    expect(a.robots).toHaveLength(0);
    // 00:30 the next day, the night still under way, in this process and in another.
    await a.clock.advance(10.5 * 60 * 60 * 1000);
    expect(await a.step(call({ url: `${ORIGIN}/b`, source: "s2" }))).toMatchObject({
      outcome: { kind: "ok" },
    });
    expect(a.robots).toHaveLength(0);
    const b = gate(allow, "2026-11-05", a.clock.now());
    await b.cache.put({ ...(await a.cache.get(ORIGIN))! });
    expect(await b.step(call({ url: `${ORIGIN}/c`, source: "s3" }))).toMatchObject({
      outcome: { kind: "ok" },
    });
    expect(b.robots).toHaveLength(0);
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
