import { afterEach, describe, expect, it } from "vitest";
import { type Clock, ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher, type PoliteFetcher } from "../../src/net/fetcher.js";
import { memoryPorts } from "../../src/net/memory-ports.js";
import { resolveOptions } from "../../src/net/options.js";
import { MIN_GAP_MS } from "../../src/policy/constants.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { gaps, minGap, neverOverlapped } from "../fleet/gaps.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

describe("one lane per site (P9, P10)", () => {
  it("P9, P10: two hostnames of one site share one lane and the real 2 s gap (wall clock)", async () => {
    h = await harness({ realTime: true });
    const a = await h.fleet.server({ host: "127.0.0.2" });
    const b = await h.fleet.server({ host: "127.0.0.3" });
    for (const s of [a, b]) {
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      s.route("/list", html("list"));
    }
    const f = h.fetcher({
      transportOptions: {
        resolve: [
          `a.records-test.org:${a.port}:127.0.0.2`,
          `b.records-test.org:${b.port}:127.0.0.3`,
        ],
      },
    });
    const outs = await Promise.all([
      f.fetch({ url: `http://a.records-test.org:${a.port}/list`, purpose: "page", source: "one" }),
      f.fetch({ url: `http://b.records-test.org:${b.port}/list`, purpose: "page", source: "two" }),
    ]);
    expect(outs.map((o) => o.kind)).toEqual(["ok", "ok"]);
    const seen = [...a.requests, ...b.requests];
    expect(seen).toHaveLength(4);
    // Each server saw its own hostname in Host: two names, one site, one lane.
    expect(new Set(seen.map((r) => String(r.headers.host).split(":")[0]))).toEqual(
      new Set(["a.records-test.org", "b.records-test.org"]),
    );
    expect(minGap(seen)).toBeGreaterThanOrEqual(MIN_GAP_MS);
    expect(h.ports.log.entries.every((e) => e.site === "records-test.org")).toBe(true);
  }, 30_000);

  it("P9: concurrent fetches on one site never overlap; another site proceeds meanwhile", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    for (const s of [a, b]) {
      s.route("/robots.txt", robots(""));
      for (let i = 0; i < 4; i++) s.route(`/p${i}`, html(`page ${i}`));
    }
    const f = h.fetcher();
    const jobs = [];
    for (let i = 0; i < 4; i++) {
      jobs.push(f.fetch({ url: a.url(`/p${i}`), purpose: "page", source: `a${i}` }));
      jobs.push(f.fetch({ url: b.url(`/p${i}`), purpose: "page", source: `b${i}` }));
    }
    expect((await Promise.all(jobs)).every((o) => o.kind === "ok")).toBe(true);
    expect(a.requests).toHaveLength(5);
    expect(neverOverlapped(a.requests)).toBe(true);
    expect(minGap(a.requests)).toBeGreaterThanOrEqual(2000);
    expect(minGap(b.requests)).toBeGreaterThanOrEqual(2000);
    // The two sites interleave: b's second request starts before a's last one.
    expect(b.requests[1]!.startedAt).toBeLessThan(a.requests.at(-1)!.startedAt);
  });

  it("P10: the gap holds across a restart (a new fetcher reads the persisted end time)", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", html("list"));
    await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    // Another URL: the same one would be answered from tonight's stored copy (P8).
    await h.fetcher().fetch({ url: s.url("/list?page=2"), purpose: "page" });
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list", "/list?page=2"]);
    expect(gaps(s.requests)).toEqual([2001, 2001]);
    expect(h.ports.journal.lastEnd(s.host)).toBe(s.requests.at(-1)!.endedAt);
  });

  it("P10: a shorter gap is honoured only on loopback with private addresses allowed", () => {
    const base = { clock: new ManualClock(), ...memoryPorts() };
    const loop = new URL("http://127.0.0.2:8080/x");
    const pub = new URL("https://records.example.org/x");
    const tests = resolveOptions({
      ...base,
      gapMs: 10,
      transportOptions: { allowPrivateAddresses: true },
    });
    expect(tests.gapFor(loop)).toBe(10);
    expect(tests.gapFor(pub)).toBe(MIN_GAP_MS);
    expect(resolveOptions({ ...base, gapMs: 10 }).gapFor(loop)).toBe(MIN_GAP_MS);
    expect(resolveOptions({ ...base, gapMs: 5000 }).gapFor(pub)).toBe(5000);
    const pinned = resolveOptions({
      ...base,
      gapMs: 10,
      transportOptions: {
        allowPrivateAddresses: true,
        resolve: ["records.example.org:443:127.0.0.5"],
      },
    });
    expect(pinned.gapFor(pub)).toBe(10);
  });
});

/**
 * A clock whose timers fire a millisecond early, and a 1 ms timer at once (the loop's cached
 * time, a coarse timer): time moves only by its sleeps, the servers stamp requests with it.
 */
class EarlyTimers implements Clock {
  #now = Date.UTC(2026, 10, 5, 8, 0, 0);
  now(): number {
    return this.#now;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    await new Promise((r) => setImmediate(r));
    this.#now += Math.max(0, Math.floor(ms) - 1);
  }
}

describe("admitted ahead, sent on time (P10)", () => {
  let fleet: Fleet | undefined;
  let fetcher: PoliteFetcher | undefined;
  afterEach(async () => {
    await fetcher?.close();
    await fleet?.close();
  });

  it("P10: timers that keep firing early never let a request leave before its planned start (the server's view)", async () => {
    const clock = new EarlyTimers();
    fleet = await startFleet({ now: () => clock.now() });
    const s = await fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", html("list"));
    const ports = memoryPorts();
    // The site's last request (another process's) ended so that the next may start 40 ms
    // from now: within the admission's lead, so it is admitted ahead, planned 40 ms on.
    const allowed = clock.now() + 40;
    ports.journal.sites.set(s.host, { lastEnd: allowed - MIN_GAP_MS - 1 });
    fetcher = createFetcher({
      clock,
      ids: randomIds,
      ...ports,
      transportOptions: { allowPrivateAddresses: true },
    });
    await fetcher.fetch({ url: s.url("/list"), purpose: "page", source: "one" });
    for (const r of s.requests)
      expect(r.startedAt, `${r.path} left before the gap allowed`).toBeGreaterThanOrEqual(allowed);
    // Its row is there, completed as not sent (nothing went out).
    const rows = ports.journal.entries.filter((e) => e.startedAt === allowed);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows.filter((e) => !s.requests.some((r) => r.startedAt >= e.startedAt)))
      expect(row).toMatchObject({ outcome: "interrupted", bytes: 0, status: null });
  });
});
