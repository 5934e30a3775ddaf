import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/net/options.js";
import { MIN_GAP_MS, ROBOTS_TTL_MS } from "../../src/policy/constants.js";
import type { Handler } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots, status } from "../fleet/routes.js";

/**
 * Adversarial review of the politeness core: each test here failed before its fix, and
 * watches from the server's side (what the loopback fleet saw) wherever the promise is about
 * requests.
 */
let h: Harness;
afterEach(async () => h?.close());

const DIR = join(import.meta.dirname, "../fixtures/refusal");

/** A fixture page of test/fixtures/refusal (see its PROVENANCE.md), served as it is. */
function fixture(name: string): Handler {
  const meta = JSON.parse(readFileSync(join(DIR, `${name}.json`), "utf8")) as {
    status: number;
    headers: Record<string, string>;
  };
  const bodyFile = readdirSync(DIR).find((f) => f.startsWith(`${name}.`) && !f.endsWith(".json"))!;
  const body = readFileSync(join(DIR, bodyFile));
  const headers: Record<string, string | string[]> = { ...meta.headers };
  if (typeof headers["set-cookie"] === "string")
    headers["set-cookie"] = headers["set-cookie"].split("\n");
  delete headers["content-length"];
  delete headers["content-encoding"];
  return (_req, res) => {
    res.writeHead(meta.status, headers).end(body);
  };
}

describe("review: huge Crawl-delay (P10, P13)", () => {
  it("P10: a Crawl-delay of 35 days means not tonight, even with no deadline on the wall clock", async () => {
    // setTimeout caps at 2^31-1 ms and fires at once past it; the gate must not then send.
    h = await harness({ realTime: true });
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nCrawl-delay: 3000000\n"));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await Promise.race([
      f.fetch({ url: s.url("/list"), purpose: "page" }),
      new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 1_500)),
    ]);
    expect(s.hits("/list")).toHaveLength(0);
    expect(out).toMatchObject({ kind: "deadline" });
  });

  it("P10: in virtual time too, a Crawl-delay past a day is never slept through to send", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nCrawl-delay: 99999999999\n"));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const out = await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    expect(out.kind).toBe("deadline");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  });

  it("P10: a stored site end far in the future (clock went back) counts as now: the gap from now is waited, never a sleep cut short, and the request sent once, never sooner", async () => {
    // That request really ended at the latest now: counted from 400 days ahead, the site would
    // be held for 400 days (a clock run fast for a night, then set right). Counted from now, the
    // gap still holds after it, whatever its real end (admission.ts endAsCounted).
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const at = h.clock.now();
    h.ports.journal.sites.set(s.host, { lastEnd: at + 400 * 24 * 3600_000 });
    const out = await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    expect(out.kind).toBe("ok");
    const sent = s.hits("/list");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.startedAt).toBeGreaterThan(at + MIN_GAP_MS);
  });
});

describe("review: a no served as robots.txt (P21)", () => {
  it.each(["cloudflare-managed-403", "anubis-200", "imperva-incident-200"])(
    "P21: a challenge page (%s) served for robots.txt is a no: the page is never requested",
    async (name) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", fixture(name));
      s.route("/list", html("<ul><li>bid</li></ul>"));
      const f = h.fetcher();
      const out = await f.fetch({ url: s.url("/list"), purpose: "page" });
      expect(out.kind).toBe("refused");
      expect((await f.fetch({ url: s.url("/other"), purpose: "page" })).kind).toBe("site-closed");
      expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
      expect(h.ports.log.entries.map((e) => e.outcome)).toEqual(["refused"]);
      expect(h.ports.journal.sites.get(s.host)?.closed).toBeDefined();
    },
  );

  it("P20: a plain 403 for robots.txt still allows everything (RFC 9309 §2.3.1.3, unchanged)", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", status(403));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    expect((await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });
});

describe("review: where a robots.txt redirect may lead (P3, P21)", () => {
  it("P3: a robots.txt redirect to a URL with user-info is never sent; the origin stays closed", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    a.route("/robots.txt", redirect(`http://user:pw@${b.host}:${b.port}/robots.txt`));
    a.route("/list", html("<ul><li>bid</li></ul>"));
    b.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    const out = await h.fetcher().fetch({ url: a.url("/list"), purpose: "page" });
    expect(out.kind).toBe("robots-unavailable");
    expect(b.requests).toHaveLength(0);
    expect(a.hits("/list")).toHaveLength(0);
    expect(JSON.stringify(h.ports.log.entries)).not.toContain("user:pw");
  });

  it("P20: a robots.txt redirect with an unparseable Location is unreachable, not a crash", async () => {
    h = await harness();
    const a = await h.fleet.server();
    a.route("/robots.txt", redirect("http://[not-a-host/robots.txt"));
    a.route("/list", html("<ul><li>bid</li></ul>"));
    const out = await h.fetcher().fetch({ url: a.url("/list"), purpose: "page" });
    expect(out.kind).toBe("robots-unavailable");
    expect(a.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  });

  it("P21: a robots.txt redirect into a site closed tonight sends nothing to that site", async () => {
    h = await harness();
    const closedSite = await h.fleet.server();
    closedSite.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    closedSite.route("/bids", status(403));
    const a = await h.fleet.server();
    a.route("/robots.txt", redirect(closedSite.url("/robots.txt")));
    a.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    expect((await f.fetch({ url: closedSite.url("/bids"), purpose: "page" })).kind).toBe("refused");
    const before = closedSite.requests.length;
    const out = await f.fetch({ url: a.url("/list"), purpose: "page" });
    expect(closedSite.requests.length).toBe(before);
    expect(a.hits("/list")).toHaveLength(0);
    expect(["site-closed", "robots-unavailable"]).toContain(out.kind);
  });
});

describe("review: the loopback-only short gap (P10)", () => {
  it("P10: `localhost` pinned to a public address keeps the 2 s floor", () => {
    const opts = resolveOptions({
      gapMs: 0,
      transportOptions: { allowPrivateAddresses: true, resolve: ["localhost:443:93.184.216.34"] },
    });
    expect(opts.gapFor(new URL("https://localhost/x"))).toBe(MIN_GAP_MS);
    expect(opts.gapFor(new URL("http://localhost/x"))).toBe(0);
  });
});

describe("review: no method skips the robots gate (P18)", () => {
  it.each(["HEAD", "POST"] as const)(
    "P18: a %s to a disallowed path is never sent",
    async (method) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nDisallow: /search\n"));
      const out = await h.fetcher().fetch({
        url: s.url("/search"),
        method,
        ...(method === "POST"
          ? { body: "q=bids", contentType: "application/x-www-form-urlencoded" }
          : {}),
        purpose: "form",
      });
      expect(out.kind).toBe("disallowed");
      expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /robots.txt"]);
    },
  );
});

describe("review: stale robots.txt rules (P16)", () => {
  it("P16: a 304 on a robots.txt redirect hop (no validators sent there) does not revive rules older than a day", async () => {
    h = await harness();
    const s = await h.fleet.server();
    await h.ports.robotsCache.put({
      origin: s.origin,
      fetchedAt: h.clock.now() - ROBOTS_TTL_MS - 3600_000,
      state: "rules",
      status: 200,
      body: "User-agent: *\nAllow: /\n",
      etag: '"v1"',
    });
    s.route("/robots.txt", redirect("/moved/robots.txt", 301));
    s.route("/moved/robots.txt", status(304));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const out = await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    expect(out.kind).toBe("robots-unavailable");
    expect(s.hits("/list")).toHaveLength(0);
    // The conditional went only where it belongs: to the first robots.txt request.
    expect(s.hits("/robots.txt")[0]?.headers["if-none-match"]).toBe('"v1"');
    expect(s.hits("/moved/robots.txt")[0]?.headers["if-none-match"]).toBeUndefined();
  });
});
