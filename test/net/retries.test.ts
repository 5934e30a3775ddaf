import { afterEach, describe, expect, it } from "vitest";
import { siteOf } from "../../src/policy/site.js";
import { gaps } from "../fleet/gaps.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, reset, robots, sequence, status } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

async function origin() {
  h = await harness();
  const s = await h.fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  return { s, f: h.fetcher() };
}

describe("retries, as the server sees them (P15)", () => {
  it("P15: 503 with Retry-After: 3 is retried after 3 s, then succeeds", async () => {
    const { s, f } = await origin();
    s.route("/list", sequence(status(503, { "retry-after": "3" }), html("back")));
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(gaps(s.hits("/list"))).toEqual([3000]);
    expect(
      h.ports.log.entries.filter((e) => e.purpose === "page").map((e) => [e.attempt, e.outcome]),
    ).toEqual([
      [1, "retry"],
      [2, "ok"],
    ]);
  });

  it("P15, P10: a Retry-After shorter than the gap still waits the 2 s gap", async () => {
    const { s, f } = await origin();
    s.route("/list", sequence(status(503, { "retry-after": "0" }), html("back")));
    await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(gaps(s.hits("/list"))).toEqual([2001]);
  });

  it("P15: Retry-After: 61 means no retry tonight (error, one request)", async () => {
    const { s, f } = await origin();
    s.route("/list", status(503, { "retry-after": "61" }));
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "error",
      status: 503,
    });
    expect(s.hits("/list")).toHaveLength(1);
  });

  it("P15: Retry-After sent twice (30 and 30) is waited 30 s, not the 5 s default", async () => {
    const { s, f } = await origin();
    s.route(
      "/list",
      sequence((_req, res) => {
        // Two header lines; the fetcher sees them joined as "30, 30".
        res.setHeader("retry-after", ["30", "30"]);
        res.writeHead(503).end();
      }, html("back")),
    );
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(gaps(s.hits("/list"))).toEqual([30_000]);
  });

  it("P15: Retry-After sent as 10 and 40 is waited 40 s, the larger", async () => {
    const { s, f } = await origin();
    s.route(
      "/list",
      sequence((_req, res) => {
        res.setHeader("retry-after", ["10", "40"]);
        res.writeHead(503).end();
      }, html("back")),
    );
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(gaps(s.hits("/list"))).toEqual([40_000]);
  });

  it("P15: an unreadable Retry-After (45.0) on a 503 means no retry tonight (one request)", async () => {
    const { s, f } = await origin();
    s.route("/list", sequence(status(503, { "retry-after": "45.0" }), html("back")));
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "error",
      status: 503,
    });
    expect(s.hits("/list")).toHaveLength(1);
  });

  it("P15: an unreadable Retry-After holds the whole site 60 s, the longest wait kept (never sooner than a plain 503's)", async () => {
    const { s, f } = await origin();
    s.route("/list", status(503, { "retry-after": "in a while" }));
    s.route("/other", html("other"));
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("error");
    const [refused] = s.hits("/list");
    expect(s.hits("/list")).toHaveLength(1);
    // The site held 60 s from the answer's end, as the journal keeps it.
    const held = h.ports.journal.sites.get(siteOf(s.url("/list")))?.notBefore ?? 0;
    expect(held - refused!.endedAt).toBeGreaterThanOrEqual(60_000);
    // A 5xx with no retry tonight also leaves the site down for the night (our rule beside
    // P15): another page there is not asked at all, stricter than the hold.
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-down");
    expect(s.hits("/other")).toHaveLength(0);
  });

  it("P15, P21: an unreadable Retry-After on a 429 is a no: one request, the site closed for the night", async () => {
    const { s, f } = await origin();
    s.route(
      "/list",
      sequence((_req, res) => {
        res.setHeader("retry-after", ["30", "later"]);
        res.writeHead(429).end();
      }, html("back")),
    );
    s.route("/other", html("other"));
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "refused",
      status: 429,
      evidence: { verdict: "rate-limit", marker: "HTTP 429, Retry-After: 30, later" },
    });
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    expect(s.hits("/list")).toHaveLength(1);
    expect(s.hits("/other")).toHaveLength(0);
  });

  it("P15: Retry-After as an HTTP date is honoured", async () => {
    const { s, f } = await origin();
    s.route(
      "/list",
      sequence((_req, res) => {
        const at = new Date(h.clock.now() + 12_000).toUTCString();
        res.writeHead(503, { "retry-after": at }).end();
      }, html("back")),
    );
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    const [g] = gaps(s.hits("/list"));
    // An HTTP date has whole seconds: the wait is 11–12 s, never shorter than the date asks.
    expect(g).toBeGreaterThanOrEqual(11_000);
    expect(g).toBeLessThanOrEqual(12_000);
    const first = s.hits("/list")[0]!;
    const askedAt = Math.floor((first.startedAt + 12_000) / 1000) * 1000;
    expect(s.hits("/list")[1]!.startedAt).toBeGreaterThanOrEqual(askedAt);
  });

  it("P15: 500 without Retry-After waits 5 s, then 20 s, then gives up (three requests, error)", async () => {
    const { s, f } = await origin();
    s.route("/list", status(500));
    expect(await f.fetch({ url: s.url("/list"), purpose: "page" })).toMatchObject({
      kind: "error",
      status: 500,
    });
    expect(gaps(s.hits("/list"))).toEqual([5000, 20_000]);
  });

  it("P15, P21: a 429 that outlasts its retries is a no; the site is closed for the night", async () => {
    const { s, f } = await origin();
    s.route("/list", status(429));
    s.route("/other", html("other"));
    const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(out).toMatchObject({
      kind: "refused",
      status: 429,
      evidence: { verdict: "rate-limit" },
    });
    expect(s.hits("/list")).toHaveLength(3);
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
    expect(s.hits("/other")).toHaveLength(0);
    expect(h.ports.log.entries.at(-1)).toMatchObject({ outcome: "refused", attempt: 3 });
  });

  it("P15, P21: a connection reset on every attempt is a no (three attempts)", async () => {
    const { s, f } = await origin();
    s.route("/list", reset);
    const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(out).toMatchObject({ kind: "refused", evidence: { verdict: "closed" } });
    expect(s.hits("/list")).toHaveLength(3);
    expect(gaps(s.hits("/list"))).toEqual([5000, 20_000]);
  });

  it("P15: a reset followed by a 200 is just a retry", async () => {
    const { s, f } = await origin();
    s.route("/list", sequence(reset, html("fine")));
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.hits("/list")).toHaveLength(2);
  });

  it.each([400, 404, 410, 418])("P15: a %i is not retried", async (code) => {
    const { s, f } = await origin();
    s.route("/list", status(code));
    const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(out.kind).toBe(code === 404 || code === 410 ? "gone" : "error");
    expect(s.hits("/list")).toHaveLength(1);
  });

  it("P13: a retry wait that would pass the deadline ends the fetch without sending", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", status(503));
    const deadline = h.clock.now() + 10_000;
    const f = h.fetcher({ deadline });
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("deadline");
    // robots.txt, attempt 1, attempt 2 after 5 s; the 20 s wait would pass the deadline.
    expect(s.hits("/list")).toHaveLength(2);
    expect(s.requests.every((r) => r.startedAt <= deadline)).toBe(true);
    // It returned at once instead of sleeping towards the deadline.
    expect(h.clock.now()).toBeLessThan(deadline);
  });

  it("P13, P15: a retry cut off by the deadline leaves the site alone tonight: its other pages are not read sooner than the wait", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", status(429));
    s.route("/other", html("other"));
    const deadline = h.clock.now() + 10_000;
    const f = h.fetcher({ deadline });
    // Attempt 1, attempt 2 after 5 s; the 20 s wait would pass the deadline.
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("deadline");
    expect(s.hits("/list")).toHaveLength(2);
    // Another page of the same site, asked now (2 s after the 429, before the deadline): the
    // 20 s the checker itself would have waited holds the site, so not tonight.
    expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("deadline");
    expect(s.hits("/other")).toHaveLength(0);
  });

  it("P15: while a retry waits its 5 s, nothing else goes to its site", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", sequence(status(503), html("back")));
    s.route("/other", html("other"));
    const f = h.fetcher();
    const [list, other] = await Promise.all([
      f.fetch({ url: s.url("/list"), purpose: "page" }),
      // Asked while /list waits its 5 s: it goes once the wait is over, never inside it.
      h.clock.sleep(100).then(() => f.fetch({ url: s.url("/other"), purpose: "page" })),
    ]);
    expect([list.kind, other.kind]).toEqual(["ok", "ok"]);
    const [refused] = s.hits("/list");
    const [asked] = s.hits("/other");
    expect(asked!.startedAt - refused!.endedAt).toBeGreaterThanOrEqual(5000);
    // And the retry, 2 s after it at the least (P10): no two requests closer than the gap.
    expect(Math.min(...gaps(s.requests))).toBeGreaterThanOrEqual(2000);
  });

  it("P13: the gap is never shortened to fit the deadline", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nCrawl-delay: 30\n"));
    s.route("/a", html("a"));
    s.route("/b", html("b"));
    // robots.txt at 0 s, /a at 30 s (Crawl-delay), /b would be at 60 s: past the deadline.
    const f = h.fetcher({ deadline: h.clock.now() + 45_000 });
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    expect((await f.fetch({ url: s.url("/b"), purpose: "page" })).kind).toBe("deadline");
    expect(s.hits("/b")).toHaveLength(0);
  });
});
