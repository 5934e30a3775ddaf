import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { siteOf } from "../../src/policy/site.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type Handler, startFleet } from "../fleet/fleet.js";
import { minGap, neverOverlapped } from "../fleet/gaps.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, redirect, robots, status } from "../fleet/routes.js";

/**
 * Races the journal closes (P9, P10, P15, P21): every decision to send is read from durable
 * state at the moment of sending, so a request already waiting in a lane, a retry scheduled
 * earlier, another process or a restart sees the no, the gap and the Retry-After at once.
 */
let h: Harness | undefined;
let fleet: Fleet | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  await fleet?.close();
  fleet = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const REFUSAL = join(import.meta.dirname, "../fixtures/refusal");
function fixture(name: string): Handler {
  const meta = JSON.parse(readFileSync(join(REFUSAL, `${name}.json`), "utf8")) as {
    status: number;
    headers: Record<string, string>;
  };
  const file = readdirSync(REFUSAL).find((f) => f.startsWith(`${name}.`) && !f.endsWith(".json"));
  const body = readFileSync(join(REFUSAL, file as string));
  const headers: Record<string, string | string[]> = { ...meta.headers };
  delete headers["set-cookie"];
  delete headers["content-length"];
  delete headers["content-encoding"];
  return (_q, res) => void res.writeHead(meta.status, headers).end(body);
}

/** Answers after `ms` of real time, so other requests queue up meanwhile. */
const slow =
  (ms: number, then: Handler): Handler =>
  (q, res, ctx) =>
    void setTimeout(() => void then(q, res, ctx), ms);

describe("the journal closes the races (P21, P15, P9)", () => {
  it("P21: a redirect into a site that said no, waiting in that site's lane, is never sent", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    for (const s of [a, b]) s.route("/robots.txt", robots(""));
    b.route("/x", slow(150, status(403)));
    a.route("/go", redirect(b.url("/y")));
    b.route("/y", html("must never be asked"));
    const f = h.fetcher();
    const [no, via] = await Promise.all([
      f.fetch({ url: b.url("/x"), purpose: "page", source: "one" }),
      f.fetch({ url: a.url("/go"), purpose: "page", source: "two" }),
    ]);
    expect(no.kind).toBe("refused");
    expect(via.kind).toBe("site-closed");
    expect(b.requests.map((r) => r.path)).toEqual(["/robots.txt", "/x"]);
  });

  it("P21, P15: a retry scheduled before the site's no is not sent after it", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/busy", status(503));
    s.route("/no", status(403));
    const f = h.fetcher();
    const [busy, no] = await Promise.all([
      f.fetch({ url: s.url("/busy"), purpose: "page", source: "one" }),
      f.fetch({ url: s.url("/no"), purpose: "page", source: "two" }),
    ]);
    expect(no.kind).toBe("refused");
    expect(busy.kind).toBe("site-closed");
    expect(s.hits("/busy")).toHaveLength(1);
  });

  it("P21: a no from an alternate's site is remembered by that site after a restart (SQL store)", async () => {
    const clock = systemClock; // real time: the gap is 10 ms on loopback
    fleet = await startFleet({ now: () => clock.now() });
    const home = await fleet.server();
    const alt = await fleet.server();
    for (const s of [home, alt]) s.route("/robots.txt", robots(""));
    alt.route("/api", status(403));
    alt.route("/other", html("never"));
    home.route("/page", html("<li>bid</li>"));
    const dir = await mkdtemp(join(tmpdir(), "nor-races-"));
    dirs.push(dir);
    const run = async (url: string) => {
      const store = await openStore({ kind: "sqlite", dir });
      const f = createFetcher({
        clock,
        ids: randomIds,
        journal: new SqlJournal(store.db),
        robotsCache: new SqlRobotsCache(store.db),
        transportOptions: { allowPrivateAddresses: true },
        gapMs: 10,
        night: "2026-11-05",
      });
      try {
        return await f.fetch({ url, purpose: "page", source: "s" });
      } finally {
        await f.close();
        await store.close();
      }
    };
    expect((await run(alt.url("/api"))).kind).toBe("refused");
    // "Restart": a new process on the same store. The alternate's site stays closed; the
    // source's own site does not.
    expect((await run(alt.url("/other"))).kind).toBe("site-closed");
    expect((await run(home.url("/page"))).kind).toBe("ok");
    expect(alt.requests.map((r) => r.path)).toEqual(["/robots.txt", "/api"]);
  });

  it("P21: a challenge served on a robots.txt redirect closes the site that served it, not the first", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const b = await h.fleet.server();
    a.route("/robots.txt", redirect(b.url("/robots.txt"), 301));
    b.route("/robots.txt", fixture("cloudflare-managed-403"));
    b.route("/page", html("never"));
    a.route("/page", html("a page"));
    const f = h.fetcher();
    expect((await f.fetch({ url: a.url("/page"), purpose: "page" })).kind).toBe("refused");
    expect((await f.fetch({ url: b.url("/page"), purpose: "page" })).kind).toBe("site-closed");
    expect(h.ports.journal.sites.get(b.host)?.closed).toBeDefined();
    expect(h.ports.journal.sites.get(a.host)?.closed).toBeUndefined();
    expect(b.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
  });

  it("P9, P10: a second process on the same store (nor discover during a night) never overlaps a site, and keeps the gap", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    for (let i = 0; i < 4; i++) s.route(`/p${i}`, slow(30, html(`page ${i}`)));
    // Two fetchers, two holders in the journal's leases: as two processes would be.
    const night = h.fetcher();
    const discover = h.fetcher();
    const outs = await Promise.all([
      night.fetch({ url: s.url("/p0"), purpose: "page" }),
      discover.fetch({ url: s.url("/p1"), purpose: "page" }),
      night.fetch({ url: s.url("/p2"), purpose: "page" }),
      discover.fetch({ url: s.url("/p3"), purpose: "page" }),
    ]);
    expect(outs.every((o) => o.kind === "ok")).toBe(true);
    expect(s.requests).toHaveLength(5);
    expect(neverOverlapped(s.requests)).toBe(true);
    expect(minGap(s.requests)).toBeGreaterThanOrEqual(2000);
  });

  it("P15: a Retry-After of 3600 holds the whole site: another source's request waits past the deadline, so it is not sent tonight", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/a", status(503, { "retry-after": "3600" }));
    s.route("/b", html("other source"));
    const f = h.fetcher({ deadline: h.clock.now() + 30 * 60_000 });
    expect((await f.fetch({ url: s.url("/a"), purpose: "page", source: "one" })).kind).toBe(
      "error",
    );
    // The site is down for the night too (our rule beside P15), but its hold outlasts the
    // night: that says it better (the site's own wait), and nothing is sent either way.
    expect((await f.fetch({ url: s.url("/b"), purpose: "page", source: "two" })).kind).toBe(
      "deadline",
    );
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/a"]);
  });

  it("P15: a Retry-After of 30 s on a 503 that outlasts its retries holds the site 30 s, and leaves it down for the night: another source's request is not sent", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/a", status(503, { "retry-after": "30" }));
    s.route("/b", html("other source"));
    const f = h.fetcher();
    await f.fetch({ url: s.url("/a"), purpose: "page", source: "one" });
    expect(s.hits("/a")).toHaveLength(3);
    const a = s.hits("/a").at(-1);
    // The site held 30 s from the last answer's end, as the journal keeps it.
    const held = h.ports.journal.sites.get(siteOf(s.url("/a")))?.notBefore ?? 0;
    expect(held - (a?.endedAt ?? 0)).toBeGreaterThanOrEqual(30_000);
    // Stricter than the hold (our rule beside P15): the site is down for the night.
    expect((await f.fetch({ url: s.url("/b"), purpose: "page", source: "two" })).kind).toBe(
      "site-down",
    );
    expect(s.hits("/b")).toHaveLength(0);
  });
});
