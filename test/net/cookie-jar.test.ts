import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { MAX_COOKIES, SourceCookieJar } from "../../src/net/cookie-jar.js";

const T0 = Date.UTC(2026, 10, 5, 8, 0, 0);

function jar() {
  const clock = new ManualClock(T0);
  return { clock, jar: new SourceCookieJar(clock) };
}

describe("SourceCookieJar (P22)", () => {
  it("P22: a cookie goes back to the host that set it, and the jar starts empty", () => {
    const { jar: j } = jar();
    expect(j.cookieHeader("https://www.example-county.gov/bids")).toBeUndefined();
    j.store("https://www.example-county.gov/bids", ["ASP.NET_SessionId=abc123; path=/; HttpOnly"]);
    expect(j.cookieHeader("https://www.example-county.gov/bids?page=2")).toBe(
      "ASP.NET_SessionId=abc123",
    );
  });

  it("P22: a host-only cookie is not sent to another host of the same site", () => {
    const { jar: j } = jar();
    j.store("https://a.ohio.gov/x", ["s=1; Path=/"]);
    expect(j.cookieHeader("https://a.ohio.gov/y")).toBe("s=1");
    expect(j.cookieHeader("https://b.ohio.gov/y")).toBeUndefined();
    expect(j.cookieHeader("https://sub.a.ohio.gov/y")).toBeUndefined();
  });

  it("P22: a Domain cookie goes to the hosts of that domain (same site)", () => {
    const { jar: j } = jar();
    j.store("https://www.example-county.gov/", ["d=1; Domain=.example-county.gov; Path=/"]);
    expect(j.cookieHeader("https://permits.example-county.gov/")).toBe("d=1");
    expect(j.cookieHeader("https://example-county.gov/")).toBe("d=1");
    expect(j.cookieHeader("https://example-county.gov.evil.com/")).toBeUndefined();
    expect(j.cookieHeader("https://notexample-county.gov/")).toBeUndefined();
  });

  it("P22: never to another site, whatever Domain says", () => {
    const { jar: j } = jar();
    const cases = [
      "x=1; Domain=other-city.gov", // another site entirely
      "x=2; Domain=gov", // a public suffix
      "x=3; Domain=.ohio.gov", // domain of a parent the host is not under
      "x=4; Domain=github.io", // private-section suffix
    ];
    j.store("https://www.example-county.gov/", cases);
    j.store("https://someone.github.io/", ["x=4; Domain=github.io"]);
    for (const url of [
      "https://other-city.gov/",
      "https://www.other-city.gov/",
      "https://www.ohio.gov/",
      "https://anyone.gov/",
      "https://another.github.io/",
      "https://www.example-county.gov/",
    ]) {
      expect(j.cookieHeader(url), url).toBeUndefined();
    }
    expect(j.size).toBe(0);
  });

  it("P22: cookies of two sites in one source's jar never cross", () => {
    const { jar: j } = jar();
    j.store("https://www.example-city.gov/agendas", ["city=1; Path=/"]);
    j.store("https://example.legistar.com/Calendar.aspx", [
      "vendor=2; Domain=legistar.com; Path=/",
    ]);
    expect(j.cookieHeader("https://www.example-city.gov/")).toBe("city=1");
    expect(j.cookieHeader("https://other.legistar.com/")).toBe("vendor=2");
    expect(j.cookieHeader("https://legistar.com/")).toBe("vendor=2");
  });

  it("P22: loopback hosts are separate sites; Domain on an IP works only for that IP", () => {
    const { jar: j } = jar();
    j.store("http://127.0.0.2:8080/", ["a=1", "b=2; Domain=127.0.0.2", "c=3; Domain=0.0.2"]);
    expect(j.cookieHeader("http://127.0.0.2:9090/")).toBe("a=1; b=2"); // ports do not isolate (§8.5)
    expect(j.cookieHeader("http://127.0.0.3:8080/")).toBeUndefined();
  });

  const pathRows: [string, string, string, boolean][] = [
    // set at, Path attribute, request path, sent?
    ["/bids/list.aspx", "", "/bids/other", true], // default-path /bids
    ["/bids/list.aspx", "", "/bidsx", false],
    ["/bids/list.aspx", "", "/", false],
    ["/list.aspx", "", "/anything", true], // default-path /
    ["/", "; Path=/docs", "/docs", true],
    ["/", "; Path=/docs", "/docs/2026/a.pdf", true],
    ["/", "; Path=/docs", "/docsarchive", false],
    ["/", "; Path=/docs/", "/docs/a", true],
    ["/", "; Path=/docs/", "/docs", false],
    ["/a/b/c", "; Path=relative", "/a/b/x", true], // invalid Path → default-path /a/b
    ["/a/b/c", "; Path=relative", "/a/x", false],
  ];
  it.each(pathRows)(
    "P22: set at %s with %j, request %s → sent %s (RFC 6265 §5.1.4)",
    (at, attr, req, sent) => {
      const { jar: j } = jar();
      j.store(`https://www.example-county.gov${at}`, [`p=1${attr}`]);
      expect(j.cookieHeader(`https://www.example-county.gov${req}`)).toBe(sent ? "p=1" : undefined);
    },
  );

  it("P22: Max-Age and Expires, by the injected clock; Max-Age wins", async () => {
    const { clock, jar: j } = jar();
    const u = "https://www.example-county.gov/";
    j.store(u, [
      "short=1; Max-Age=60",
      "dated=2; Expires=Thu, 05 Nov 2026 08:10:00 GMT",
      "both=3; Expires=Thu, 05 Nov 2026 08:00:30 GMT; Max-Age=3600",
      "session=4",
      "gone=5; Max-Age=0",
      "past=6; Expires=Wed, 04-Nov-2026 08:00:00 GMT",
    ]);
    expect(j.cookieHeader(u)).toBe("short=1; dated=2; both=3; session=4");
    await clock.advance(61_000);
    expect(j.cookieHeader(u)).toBe("dated=2; both=3; session=4");
    await clock.advance(10 * 60_000);
    expect(j.cookieHeader(u)).toBe("both=3; session=4");
    await clock.advance(3600_000);
    expect(j.cookieHeader(u)).toBe("session=4");
  });

  it("P22: a newer Set-Cookie replaces the old one; an expired one deletes it", () => {
    const { jar: j } = jar();
    const u = "https://www.example-county.gov/";
    j.store(u, ["a=1", "b=1"]);
    j.store(u, ["a=2"]);
    expect(j.cookieHeader(u)).toBe("a=2; b=1"); // keeps a's creation order
    j.store(u, ["a=x; Max-Age=-1"]);
    expect(j.cookieHeader(u)).toBe("b=1");
    j.store(u, ["b=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT"]);
    expect(j.cookieHeader(u)).toBeUndefined();
  });

  it("P22: Secure cookies only over https, and only set from https", () => {
    const { jar: j } = jar();
    j.store("https://www.example-county.gov/", ["s=1; Secure", "p=2"]);
    j.store("http://www.example-county.gov/", ["fromhttp=3; Secure"]);
    expect(j.cookieHeader("https://www.example-county.gov/")).toBe("s=1; p=2");
    expect(j.cookieHeader("http://www.example-county.gov/")).toBe("p=2");
  });

  it("P22: __Secure- and __Host- prefixes are enforced (RFC 6265bis)", () => {
    const { jar: j } = jar();
    j.store("https://www.example-county.gov/a/", [
      "__Secure-ok=1; Secure",
      "__Secure-bad=2",
      "__Host-ok=3; Secure; Path=/",
      "__Host-dom=4; Secure; Path=/; Domain=example-county.gov",
      "__Host-path=5; Secure",
    ]);
    expect(j.cookieHeader("https://www.example-county.gov/a/")).toBe("__Secure-ok=1; __Host-ok=3");
  });

  it("P22: longer paths first, then older first (RFC 6265 §5.4)", () => {
    const { jar: j } = jar();
    const u = "https://www.example-county.gov/docs/minutes/2026.pdf";
    j.store("https://www.example-county.gov/", [
      "root=1; Path=/",
      "deep=2; Path=/docs/minutes",
      "mid=3; Path=/docs",
      "root2=4; Path=/",
    ]);
    expect(j.cookieHeader(u)).toBe("deep=2; mid=3; root=1; root2=4");
  });

  const malformed: string[] = [
    "noequals",
    "=value-without-name",
    "  ; Path=/",
    "bad=1\u0001; Path=/",
    `big=${"x".repeat(5000)}`,
  ];
  it.each(malformed)("P22: a malformed Set-Cookie %j is ignored", (line) => {
    const { jar: j } = jar();
    j.store("https://www.example-county.gov/", [line]);
    expect(j.cookieHeader("https://www.example-county.gov/")).toBeUndefined();
  });

  it("P22: values keep their quotes and '='; attribute names are case-insensitive", () => {
    const { jar: j } = jar();
    const u = "https://www.example-county.gov/";
    j.store(u, ['q="a=b"; PATH=/; SECURE; max-AGE=10', "TS01a2b3c4=01f2e3==; path=/"]);
    expect(j.cookieHeader(u)).toBe('q="a=b"; TS01a2b3c4=01f2e3==');
    expect(j.cookieHeader("http://www.example-county.gov/")).toBe("TS01a2b3c4=01f2e3==");
  });

  it("P22: newline-joined Set-Cookie values are separate cookies; non-http URLs are ignored", () => {
    const { jar: j } = jar();
    j.store("https://www.example-county.gov/", ["a=1; Path=/\nb=2; Path=/"]);
    j.store("ftp://www.example-county.gov/", ["c=3"]);
    expect(j.cookieHeader("https://www.example-county.gov/")).toBe("a=1; b=2");
    expect(j.cookieHeader("ftp://www.example-county.gov/")).toBeUndefined();
    expect(j.cookieHeader("not a url")).toBeUndefined();
  });

  it("P22: the jar is bounded: a site cannot grow it past MAX_COOKIES", () => {
    const { jar: j } = jar();
    const lines = Array.from({ length: 3 * MAX_COOKIES }, (_, i) => `c${i}=v`);
    for (let i = 0; i < 3; i++)
      j.store(
        "https://www.example-county.gov/",
        lines.slice(i * MAX_COOKIES, (i + 1) * MAX_COOKIES),
      );
    expect(j.size).toBe(MAX_COOKIES);
    const header = j.cookieHeader("https://www.example-county.gov/") ?? "";
    expect(header.startsWith(`c${2 * MAX_COOKIES}=v`)).toBe(true); // the newest are kept
  });

  it("P22: two jars (two sources, or two nights) share nothing", () => {
    const a = jar().jar;
    const b = jar().jar;
    a.store("https://www.example-county.gov/", ["a=1"]);
    expect(b.cookieHeader("https://www.example-county.gov/")).toBeUndefined();
  });
});
