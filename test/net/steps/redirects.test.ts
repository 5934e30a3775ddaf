import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.js";
import type { Reply } from "../../../src/net/pipeline.js";
import { redirects } from "../../../src/net/steps/redirects.js";
import { call, fakeNext, got, ok, response } from "./fakes.js";

const redirect = (
  location: string,
  status = 302,
  headers: Record<string, string> = {},
  endedAt = 1500,
): Reply => ({
  kind: "redirect",
  status,
  location,
  got: got(response(status, { headers: { location, ...headers }, endedAt })),
});

describe("step: redirects (P19)", () => {
  it("P19: a redirect is followed as a new request down every step below, logged as a redirect hop", async () => {
    const { next, calls } = fakeNext((c, n) => (n === 1 ? redirect("/new?x=1") : ok(c.url)));
    const first = call({ source: "s1", validators: { etag: '"v1"' } });
    const out = await redirects({ clock: new ManualClock(0) })(next)(first);
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "ok" } });
    expect(calls.map((c) => [c.url, c.purpose, c.chain])).toEqual([
      [first.url, "page", []],
      ["https://www.records.example.gov/new?x=1", "redirect", [first.url]],
    ]);
    // The hop is the same request otherwise (its source), its headers built again below.
    expect(calls[1]).toMatchObject({ source: "s1", headers: {} });
  });

  it("P19: five redirects in a row are followed; the sixth is not", async () => {
    const { next, calls } = fakeNext((_c, n) => redirect(`/h${n}`));
    const out = await redirects({ clock: new ManualClock(0) })(next)(call());
    expect(calls).toHaveLength(6);
    expect(out).toMatchObject({
      kind: "final",
      outcome: { kind: "error", status: 302, reason: "too many redirects" },
    });
  });

  it("RFC 9110 §15.4: 303 after POST becomes GET without the body; 307 repeats both", async () => {
    const post = call({
      method: "POST",
      body: "q=bids",
      contentType: "application/x-www-form-urlencoded",
    });
    const a = fakeNext((c, n) => (n === 1 ? redirect("/results", 303) : ok(c.url)));
    await redirects({ clock: new ManualClock(0) })(a.next)(post);
    expect(a.calls[1]).toMatchObject({ method: "GET" });
    expect(a.calls[1]?.body).toBeUndefined();
    expect(a.calls[1]?.contentType).toBeUndefined();
    const b = fakeNext((c, n) => (n === 1 ? redirect("/results", 307) : ok(c.url)));
    await redirects({ clock: new ManualClock(0) })(b.next)(post);
    expect(b.calls[1]).toMatchObject({ method: "POST", body: "q=bids" });
  });

  it("P3: a Location with user-info is never followed", async () => {
    const { next, calls } = fakeNext(redirect("https://u:p@other.example.org/"));
    const out = await redirects({ clock: new ManualClock(0) })(next)(call());
    expect(calls).toHaveLength(1);
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "error", status: 302 } });
    expect(JSON.stringify(out.kind === "final" && out.outcome)).not.toContain("u:p@");
  });

  it("P20: a robots.txt request's hops stay robots.txt requests (RFC 9309 §2.3.1.2)", async () => {
    const { next, calls } = fakeNext((c, n) =>
      n === 1 ? redirect("https://cdn.example.org/robots.txt", 301) : ok(c.url),
    );
    await redirects({ clock: new ManualClock(0) })(next)(
      call({
        url: "https://www.records.example.gov/robots.txt",
        purpose: "robots",
        robotsFor: "https://www.records.example.gov",
      }),
    );
    expect(calls[1]).toMatchObject({
      url: "https://cdn.example.org/robots.txt",
      purpose: "robots",
      robotsFor: "https://www.records.example.gov",
    });
  });

  it("passes any other reply up untouched", async () => {
    const reply = ok("https://www.records.example.gov/bids");
    const { next } = fakeNext(reply);
    expect(await redirects({ clock: new ManualClock(0) })(next)(call())).toBe(reply);
  });

  it("P15, RFC 9110 §10.2.3: a redirect's Retry-After is waited before the hop, even to another site", async () => {
    const clock = new ManualClock(1500);
    const sentAt: number[] = [];
    const { next, calls } = fakeNext((c, n) => {
      sentAt.push(clock.now());
      return n === 1
        ? redirect("https://elsewhere.example.org/notice", 302, { "retry-after": "30" })
        : ok(c.url);
    });
    const run = redirects({ clock })(next)(call());
    for (let i = 0; i < 10 && calls.length < 2; i++) await clock.step();
    const out = await run;
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "ok" } });
    expect(calls[1]?.url).toBe("https://elsewhere.example.org/notice");
    expect(sentAt[1]).toBe(1500 + 30_000);
  });

  it("P15: an HTTP-date Retry-After on a redirect is read against the server's Date too", async () => {
    const now = Date.UTC(2026, 10, 5, 8, 0, 0);
    const server = now - 60 * 60_000;
    const clock = new ManualClock(now);
    const sentAt: number[] = [];
    const { next, calls } = fakeNext((c, n) => {
      sentAt.push(clock.now());
      return n === 1
        ? redirect(
            "/notice",
            302,
            {
              date: new Date(server).toUTCString(),
              "retry-after": new Date(server + 20_000).toUTCString(),
            },
            now,
          )
        : ok(c.url);
    });
    const run = redirects({ clock })(next)(call());
    for (let i = 0; i < 10 && calls.length < 2; i++) await clock.step();
    await run;
    expect(sentAt[1]).toBe(now + 20_000);
  });

  it("P15: a redirect whose Retry-After is over 60 s, or unreadable, is not followed tonight", async () => {
    for (const value of ["61", "soon"]) {
      const { next, calls } = fakeNext(redirect("/notice", 302, { "retry-after": value }));
      const out = await redirects({ clock: new ManualClock(1500) })(next)(call());
      expect(calls).toHaveLength(1);
      expect(out).toMatchObject({
        kind: "final",
        outcome: {
          kind: "error",
          status: 302,
          reason: expect.stringContaining("not followed tonight"),
        },
      });
    }
  });

  it("P13: a redirect's Retry-After that ends after the deadline leaves the hop for the next night", async () => {
    const clock = new ManualClock(1500);
    const { next, calls } = fakeNext(redirect("/notice", 302, { "retry-after": "30" }));
    const out = await redirects({ clock, deadline: 1500 + 10_000 })(next)(call());
    expect(calls).toHaveLength(1);
    expect(clock.now()).toBe(1500);
    expect(out).toMatchObject({
      kind: "final",
      outcome: { kind: "deadline", url: "https://www.records.example.gov/notice" },
    });
  });

  it("P15: a Retry-After already waited out (a redirect replayed later) costs no sleep", async () => {
    const clock = new ManualClock(1500 + 60_000);
    const { next, calls } = fakeNext((c, n) =>
      n === 1 ? redirect("/notice", 302, { "retry-after": "30" }) : ok(c.url),
    );
    const out = await redirects({ clock })(next)(call());
    expect(calls).toHaveLength(2);
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "ok" } });
    expect(clock.pending).toBe(0);
  });
});
