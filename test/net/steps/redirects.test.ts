import { describe, expect, it } from "vitest";
import type { Reply } from "../../../src/net/pipeline.js";
import { redirects } from "../../../src/net/steps/redirects.js";
import { call, fakeNext, got, ok, response } from "./fakes.js";

const redirect = (location: string, status = 302): Reply => ({
  kind: "redirect",
  status,
  location,
  got: got(response(status, { headers: { location } })),
});

describe("step: redirects (P19)", () => {
  it("P19: a redirect is followed as a new request down every step below, logged as a redirect hop", async () => {
    const { next, calls } = fakeNext((c, n) => (n === 1 ? redirect("/new?x=1") : ok(c.url)));
    const first = call({ source: "s1", validators: { etag: '"v1"' } });
    const out = await redirects()(next)(first);
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
    const out = await redirects()(next)(call());
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
    await redirects()(a.next)(post);
    expect(a.calls[1]).toMatchObject({ method: "GET" });
    expect(a.calls[1]?.body).toBeUndefined();
    expect(a.calls[1]?.contentType).toBeUndefined();
    const b = fakeNext((c, n) => (n === 1 ? redirect("/results", 307) : ok(c.url)));
    await redirects()(b.next)(post);
    expect(b.calls[1]).toMatchObject({ method: "POST", body: "q=bids" });
  });

  it("P3: a Location with user-info is never followed", async () => {
    const { next, calls } = fakeNext(redirect("https://u:p@other.example.org/"));
    const out = await redirects()(next)(call());
    expect(calls).toHaveLength(1);
    expect(out).toMatchObject({ kind: "final", outcome: { kind: "error", status: 302 } });
    expect(JSON.stringify(out.kind === "final" && out.outcome)).not.toContain("u:p@");
  });

  it("P20: a robots.txt request's hops stay robots.txt requests (RFC 9309 §2.3.1.2)", async () => {
    const { next, calls } = fakeNext((c, n) =>
      n === 1 ? redirect("https://cdn.example.org/robots.txt", 301) : ok(c.url),
    );
    await redirects()(next)(
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
    expect(await redirects()(next)(call())).toBe(reply);
  });
});
