import { afterEach, describe, expect, it } from "vitest";
import type { ManualClock } from "../../src/clock.js";
import { ROBOTS_TTL_MS } from "../../src/policy/constants.js";
import { siteOf } from "../../src/policy/site.js";
import type { Handler } from "../fleet/fleet.js";
import { minGap } from "../fleet/gaps.js";
import { type Harness, harness } from "../fleet/harness.js";
import { cut, hang, html, redirect, robots, sequence, status } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

const get = (url: string) => h.fetcher().fetch({ url, purpose: "page" });

async function site(robotsHandler?: Handler) {
  h = await harness();
  const s = await h.fleet.server();
  s.route("/list", html("<ul><li>bid</li></ul>"));
  s.route("/private/x", html("secret"));
  if (robotsHandler) s.route("/robots.txt", robotsHandler);
  return s;
}

describe("robots.txt files end to end (P17, P18)", () => {
  it("P17: a byte-order mark is skipped, so the first group still applies", async () => {
    const s = await site(
      robots(Buffer.from("\xEF\xBB\xBFUser-agent: *\nDisallow: /private\n", "latin1")),
    );
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/private/x"), purpose: "page" })).kind).toBe("disallowed");
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
  });

  it("P17: a blank line does not end a group", async () => {
    const s = await site(robots("User-agent: public-records-check\n\nDisallow: /private\n"));
    expect((await get(s.url("/private/x"))).kind).toBe("disallowed");
    expect(s.hits("/private/x")).toHaveLength(0);
  });

  it("P17: `User-agent: * Disallow: /` on one line keeps the checker out", async () => {
    const s = await site(robots("User-agent: * Disallow: /\n"));
    expect((await get(s.url("/list"))).kind).toBe("disallowed");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  });

  it("P18: a disallowed path is never requested, and robots.txt is read once for many URLs", async () => {
    const s = await site(robots("User-agent: *\nDisallow: /private\n"));
    const f = h.fetcher();
    for (let i = 0; i < 3; i++) {
      await f.fetch({ url: s.url(`/private/x?page=${i}`), purpose: "page" });
      await f.fetch({ url: s.url(`/list?page=${i}`), purpose: "page" });
    }
    expect(s.hits("/robots.txt")).toHaveLength(1);
    expect(s.requests.filter((r) => r.path.startsWith("/private"))).toHaveLength(0);
    expect(s.requests.filter((r) => r.path.startsWith("/list"))).toHaveLength(3);
  });
});

describe("robots.txt answers (P20)", () => {
  it.each([404, 403, 410, 401])("P20: robots.txt answering %i allows everything", async (code) => {
    const s = await site(status(code));
    expect((await get(s.url("/private/x"))).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/private/x"]);
  });

  it.each([429, 500, 503])(
    "P20: robots.txt answering %i keeps the checker off the origin tonight",
    async (code) => {
      const s = await site(status(code));
      const f = h.fetcher();
      const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
      expect(out).toMatchObject({ kind: "robots-unavailable", origin: s.origin });
      expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe(
        "robots-unavailable",
      );
      // One robots.txt request, no retry, and the page never asked for.
      expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    },
  );

  it("P20: a robots.txt cut off mid-body counts as unreachable", async () => {
    const s = await site(cut(4000, 100));
    expect((await get(s.url("/list"))).kind).toBe("robots-unavailable");
    expect(s.hits("/list")).toHaveLength(0);
  });

  it("P20, P27: a robots.txt answered 206 (a part of the file, unasked) counts as unreachable, cut off mid-transfer, and the log says so", async () => {
    const s = await site((_q, res) => {
      res
        .writeHead(206, { "content-type": "text/plain", "content-range": "bytes 0-13/35" })
        .end("User-agent: *\n");
    });
    expect((await get(s.url("/list"))).kind).toBe("robots-unavailable");
    expect(s.hits("/list")).toHaveLength(0);
    expect(h.ports.log.entries[0]).toMatchObject({
      purpose: "robots",
      status: 206,
      outcome: "unreachable",
    });
    expect(h.ports.log.entries[0]?.failure).toMatch(/206 Partial Content.*cut off/);
  });

  it("P20: a robots.txt that never answers (past the headers timeout) counts as unreachable", async () => {
    const s = await site(hang);
    const f = h.fetcher({ transportOptions: { headersTimeoutMs: 300 } });
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe(
      "robots-unavailable",
    );
    expect(s.hits("/list")).toHaveLength(0);
    expect(h.ports.log.entries[0]).toMatchObject({ purpose: "robots", outcome: "unreachable" });
    expect(h.ports.log.entries[0]?.failure).toMatch(/timeout-headers/);
  });

  it("P20: a host that refuses the connection counts as unreachable", async () => {
    h = await harness();
    const s = await h.fleet.server();
    const url = `http://${s.host}:1/list`; // nothing listens on port 1
    expect((await get(url)).kind).toBe("robots-unavailable");
  });

  it("P20: unreachable holds for the whole night, even across a restart; the next night asks again", async () => {
    const s = await site(status(503));
    await h.fetcher({ night: "2026-11-05" }).fetch({ url: s.url("/list"), purpose: "page" });
    const again = await h
      .fetcher({ night: "2026-11-05" })
      .fetch({ url: s.url("/list"), purpose: "page" });
    expect(again.kind).toBe("robots-unavailable");
    expect(s.hits("/robots.txt")).toHaveLength(1);
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    const next = await h
      .fetcher({ night: "2026-11-06" })
      .fetch({ url: s.url("/list"), purpose: "page" });
    expect(next.kind).toBe("ok");
    expect(s.hits("/robots.txt")).toHaveLength(2);
    // P27: every attempt is logged with its night.
    expect(h.ports.log.entries.map((e) => [e.night, e.purpose, e.outcome])).toEqual([
      ["2026-11-05", "robots", "unreachable"],
      ["2026-11-06", "robots", "rules"],
      ["2026-11-06", "page", "ok"],
    ]);
  });
});

describe("robots.txt redirects (P20, RFC 9309 §2.3.1.2)", () => {
  it("P20: a robots.txt redirected on the same host is followed and its rules apply", async () => {
    const s = await site(redirect("/real-robots.txt", 301));
    s.route("/real-robots.txt", robots("User-agent: *\nDisallow: /private\n"));
    expect((await get(s.url("/private/x"))).kind).toBe("disallowed");
    expect((await get(s.url("/list"))).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/real-robots.txt", "/list"]);
  });

  it("P20: a robots.txt redirected to another host: its rules apply to the original origin only", async () => {
    const s = await site();
    const other = await h.fleet.server();
    s.route("/robots.txt", redirect(other.url("/robots.txt")));
    other.route("/robots.txt", robots("User-agent: *\nDisallow: /private\n"));
    other.route("/private/x", html("other's private page"));
    expect((await get(s.url("/private/x"))).kind).toBe("disallowed");
    // The other origin's own robots.txt governs its own URLs: the answer the redirect reached
    // is that origin's robots.txt, so it is not asked for again (P11, P16).
    expect((await get(other.url("/private/x"))).kind).toBe("disallowed");
    expect(other.hits("/robots.txt")).toHaveLength(1);
    expect(h.ports.log.entries.filter((e) => e.purpose === "robots")).toHaveLength(2);
  });

  it("P18, P19: a robots.txt redirected into another site's page that its robots.txt disallows: that page is never requested, and the first site's robots.txt counts as unreachable", async () => {
    const s = await site();
    const other = await h.fleet.server();
    s.route("/robots.txt", redirect(other.url("/private/robots-copy.txt")));
    other.route("/robots.txt", robots("User-agent: *\nDisallow: /private/\n"));
    other.route("/private/robots-copy.txt", robots("User-agent: *\nAllow: /\n"));
    const o = await get(s.url("/list"));
    expect(o).toMatchObject({ kind: "robots-unavailable" });
    expect((o as { reason: string }).reason).toContain("robots.txt disallows");
    expect(other.hits("/robots.txt")).toHaveLength(1);
    expect(other.hits("/private/robots-copy.txt")).toHaveLength(0);
    expect(s.hits("/list")).toHaveLength(0);
    // Its rules known beforehand (read for a page of its own): the same.
    const t = await h.fleet.server();
    t.route("/robots.txt", redirect(other.url("/private/again.txt")));
    t.route("/list", html("ok"));
    expect((await get(t.url("/list"))).kind).toBe("robots-unavailable");
    expect(other.hits("/robots.txt")).toHaveLength(1);
    expect(other.hits("/private/again.txt")).toHaveLength(0);
  });

  it("P19: a robots.txt redirected into another site's page: that site's robots.txt is read first, and the page asked only when it allows it", async () => {
    const s = await site();
    const other = await h.fleet.server();
    s.route("/robots.txt", redirect(other.url("/robots-real.txt")));
    other.route("/robots.txt", robots("User-agent: *\nDisallow: /private/\n"));
    other.route("/robots-real.txt", robots("User-agent: *\nDisallow: /private\n"));
    expect((await get(s.url("/private/x"))).kind).toBe("disallowed");
    expect((await get(s.url("/list"))).kind).toBe("ok");
    expect(other.requests.map((r) => r.path)).toEqual(["/robots.txt", "/robots-real.txt"]);
  });

  it("P19: two robots.txt files redirected into each other's pages end, unreachable both, with nothing else asked", async () => {
    const s = await site();
    const other = await h.fleet.server();
    s.route("/robots.txt", redirect(other.url("/a-rules.txt")));
    other.route("/robots.txt", redirect(s.url("/b-rules.txt")));
    s.route("/b-rules.txt", robots("User-agent: *\nAllow: /\n"));
    other.route("/a-rules.txt", robots("User-agent: *\nAllow: /\n"));
    other.route("/list", html("ok"));
    const [a, b] = await Promise.all([get(s.url("/list")), get(other.url("/list"))]);
    expect(a.kind).toBe("robots-unavailable");
    expect(b.kind).toBe("robots-unavailable");
    expect(s.hits("/b-rules.txt")).toHaveLength(0);
    expect(other.hits("/a-rules.txt")).toHaveLength(0);
    expect(s.hits("/list")).toHaveLength(0);
    expect(other.hits("/list")).toHaveLength(0);
  });

  it("P11, P19: a read started to judge a hop judges its own hops by what is known only: a chain of robots.txt files redirected into the next origin's page asks two of them, not every one", async () => {
    const s = await site();
    const chain = [s];
    for (let i = 0; i < 5; i++) chain.push(await h.fleet.server());
    chain.forEach((t, i) => {
      const to = chain[i + 1];
      if (to) t.route("/robots.txt", redirect(to.url("/page.txt")));
      else t.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      t.route("/page.txt", robots("User-agent: *\nAllow: /\n"));
    });
    expect((await get(s.url("/list"))).kind).toBe("robots-unavailable");
    const robotsAsked = chain.map((t) => t.hits("/robots.txt").length);
    expect(robotsAsked).toEqual([1, 1, 0, 0, 0, 0]);
    expect(chain.map((t) => t.hits("/page.txt").length)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("P13, P19: the deadline met while the hop's origin's robots.txt would be read is said as the deadline, and nothing is kept as unreachable", async () => {
    const s = await site();
    // Another port of the same address: another origin, the same site (P9).
    const other = await h.fleet.server({ host: s.host });
    s.route("/robots.txt", redirect(other.url("/rules.txt")));
    other.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    other.route("/rules.txt", robots("User-agent: *\nAllow: /\n"));
    // One site (the same address): the gap after the first robots.txt puts the second past it.
    expect(siteOf(other.url("/"))).toBe(siteOf(s.url("/")));
    const f = h.fetcher({ deadline: h.clock.now() + 1_000 });
    const o = await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(o.kind).toBe("deadline");
    expect(other.hits("/rules.txt")).toHaveLength(0);
    expect(await h.ports.robotsCache.get(new URL(s.url("/")).origin)).toBeUndefined();
  });

  it("P20: five robots.txt redirects are followed; the sixth hop counts as unreachable", async () => {
    const s = await site();
    for (let i = 0; i < 6; i++) s.route(i === 0 ? "/robots.txt" : `/r${i}`, redirect(`/r${i + 1}`));
    s.route("/r6", robots("User-agent: *\nAllow: /\n"));
    expect((await get(s.url("/list"))).kind).toBe("robots-unavailable");
    expect(s.hits("/r6")).toHaveLength(0);
    expect(s.hits("/list")).toHaveLength(0);

    const t = await h.fleet.server();
    for (let i = 0; i < 5; i++) t.route(i === 0 ? "/robots.txt" : `/r${i}`, redirect(`/r${i + 1}`));
    t.route("/r5", robots("User-agent: *\nAllow: /\n"));
    t.route("/list", html("ok"));
    expect((await get(t.url("/list"))).kind).toBe("ok");
  });
});

describe("robots.txt location and caching (P16, P10)", () => {
  it("P16: robots.txt comes from the same port: another port's file never governs this one", async () => {
    h = await harness();
    const strict = await h.fleet.server({ host: "127.0.0.9" });
    const open = await h.fleet.server({ host: "127.0.0.9" });
    strict.route("/robots.txt", robots("User-agent: *\nDisallow: /private\n"));
    open.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    open.route("/private/x", html("fine here"));
    expect((await get(open.url("/private/x"))).kind).toBe("ok");
    expect((await get(strict.url("/private/x"))).kind).toBe("disallowed");
    expect(strict.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    expect(open.requests.map((r) => r.path)).toEqual(["/robots.txt", "/private/x"]);
  });

  it("P16: robots.txt is read at most once a day; after a day the stored ETag is sent and a 304 refreshes it", async () => {
    const s = await site((req, res) => {
      if (req.headers["if-none-match"] === '"r1"') res.writeHead(304).end();
      else
        res
          .writeHead(200, { etag: '"r1"', "content-type": "text/plain" })
          .end("User-agent: *\nDisallow: /private\n");
    });
    const f = h.fetcher();
    await f.fetch({ url: s.url("/list"), purpose: "page" });
    await (h.clock as ManualClock).advance(ROBOTS_TTL_MS - 60_000);
    await f.fetch({ url: s.url("/list"), purpose: "page" });
    expect(s.hits("/robots.txt")).toHaveLength(1);
    await (h.clock as ManualClock).advance(120_000);
    expect((await f.fetch({ url: s.url("/private/x"), purpose: "page" })).kind).toBe("disallowed");
    const robotsHits = s.hits("/robots.txt");
    expect(robotsHits).toHaveLength(2);
    expect(robotsHits[1]?.headers["if-none-match"]).toBe('"r1"');
    const cached = await h.ports.robotsCache.get(s.origin);
    expect(cached?.fetchedAt).toBe(robotsHits[1]?.startedAt);
    expect(h.ports.log.entries.filter((e) => e.purpose === "robots").map((e) => e.outcome)).toEqual(
      ["rules", "not-modified"],
    );
  });

  it("P10: a stored Crawl-delay holds across a restart, for the robots.txt refresh too", async () => {
    const s = await site(robots("User-agent: *\nCrawl-delay: 9\n"));
    await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    await (h.clock as ManualClock).advance(ROBOTS_TTL_MS);
    // A new process: the cached file is a day old, so robots.txt is read again, 9 s after.
    const before = h.clock.now();
    await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list", "/robots.txt", "/list"]);
    expect(s.requests[2]!.startedAt).toBe(before);
    expect(s.requests[3]!.startedAt - s.requests[2]!.endedAt).toBeGreaterThanOrEqual(9000);
  });

  it("P17: robots.txt is read up to its 500 KiB limit; rules past it are not used", async () => {
    const filler = `# ${"x".repeat(1000)}\n`.repeat(600); // ~600 KB of comments
    const s = await site(robots(`User-agent: *\nDisallow: /private\n${filler}Disallow: /list\n`));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/private/x"), purpose: "page" })).kind).toBe("disallowed");
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });

  it("P10: a Crawl-delay longer than 2 s replaces the gap", async () => {
    const s = await site(robots("User-agent: public-records-check\nCrawl-delay: 7\n"));
    const f = h.fetcher();
    for (let i = 0; i < 3; i++) await f.fetch({ url: s.url(`/list?page=${i}`), purpose: "page" });
    const pages = s.requests.filter((r) => r.path.startsWith("/list"));
    expect(pages).toHaveLength(3);
    expect(minGap(pages)).toBeGreaterThanOrEqual(7000);
  });
});

describe("robots.txt read once a night per origin, lanes lost meanwhile (P11, P16)", () => {
  it("P11, P16: two requests that hold their lanes, left after the shared robots.txt reads they joined were lost to two other lanes' holds, send robots.txt once between them (the robots gate reads one at a time; the journal's replay of tonight's answer would also stop a second)", async () => {
    const s = await site(robots("User-agent: *\nAllow: /\n"));
    s.route("/a", html("<p>a</p>"));
    s.route("/b", html("<p>b</p>"));
    const f = h.fetcher();
    // Lanes lost: the first from the start, the second once it is asked to read again.
    const lost = () => false;
    let asked = 0;
    // Asked when it reads again and at its admission (yes), at sending (no).
    const lostLater = () => asked++ < 2;
    const mine = () => true;
    const results = await Promise.allSettled([
      f.fetch({ url: s.url("/list"), purpose: "page", held: lost }),
      f.fetch({ url: s.url("/list?b"), purpose: "page", held: lostLater }),
      f.fetch({ url: s.url("/a"), purpose: "page", held: mine }),
      f.fetch({ url: s.url("/b"), purpose: "page", held: mine }),
    ]);
    expect(results.slice(2).map((r) => r.status === "fulfilled" && r.value.kind)).toEqual([
      "ok",
      "ok",
    ]);
    expect(s.hits("/robots.txt")).toHaveLength(1);
  });
});

describe("robots.txt copy's age at the moment of sending (P16, P10, P15)", () => {
  const clock = () => h.clock as ManualClock;
  const readAt = async (origin: string) => (await h.ports.robotsCache.get(origin))!.fetchedAt;

  it("P16, P10: a copy 1 s short of a day when a request is admitted, whose 2 s gap carries its send past the day, is read again before the request leaves: never sent on the old copy", async () => {
    const s = await site(robots("User-agent: *\nDisallow: /private\n"));
    s.route("/a", html("a"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    const read = await readAt(s.origin);
    await clock().advance(read + ROBOTS_TTL_MS - 1000 - clock().now());
    // The site's last request ends just now, on a copy 1 s short of a day: the next one waits
    // the 2 s gap, which ends past the day.
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    const admittedAt = clock().now();
    expect(admittedAt).toBe(read + ROBOTS_TTL_MS - 1000);
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/a",
      "/a",
      "/robots.txt",
      "/list",
    ]);
    const list = s.hits("/list")[0]!;
    expect(list.startedAt).toBeGreaterThanOrEqual(read + ROBOTS_TTL_MS);
    // The page went on the copy read again, under a day old, and after its gap (P10).
    expect(list.startedAt).toBeLessThan((await readAt(s.origin)) + ROBOTS_TTL_MS);
    expect(minGap(s.requests)).toBeGreaterThanOrEqual(2000);
  });

  it("P16, P15: a retry whose Retry-After hold carries it past the copy's day reads robots.txt again first, and its new rules govern the retry", async () => {
    let reads = 0;
    const s = await site((_req, res) => {
      reads++;
      res
        .writeHead(200, { "content-type": "text/plain" })
        .end(
          reads === 1 ? "User-agent: *\nDisallow: /private\n" : "User-agent: *\nDisallow: /list\n",
        );
    });
    s.route("/a", html("a"));
    s.route("/list", sequence(status(503, { "retry-after": "5" }), html("<ul><li>bid</li></ul>")));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    const read = await readAt(s.origin);
    await clock().advance(read + ROBOTS_TTL_MS - 3000 - clock().now());
    // Sent on a copy 3 s short of a day; the site asks for 5 s: the retry would leave on a
    // copy past its day. robots.txt is read again, and now leaves /list alone.
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("disallowed");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/a", "/list", "/robots.txt"]);
  });

  it("P16, P9: a request admitted ahead on a copy still serving, whose planned start falls past the copy's day, is not sent: its row says so, and robots.txt is read again first", async () => {
    const s = await site(robots("User-agent: *\nDisallow: /private\n"));
    s.route("/a", html("a"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    const read = await readAt(s.origin);
    // The site's last request ends 20 ms into the 2 s before the copy's day is up: /list is
    // admitted (50 ms ahead of its start) while the copy still serves, to start 20 ms past it.
    await clock().advance(read + ROBOTS_TTL_MS - 1980 - clock().now());
    expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/a",
      "/a",
      "/robots.txt",
      "/list",
    ]);
    const notSent = h.ports.log.entries.filter(
      (e) => e.url === s.url("/list") && e.outcome === "interrupted",
    );
    expect(notSent).toHaveLength(1);
    expect(notSent[0]).toMatchObject({ bytes: 0 });
    expect(notSent[0]?.failure).toContain("robots.txt copy");
  });
});
