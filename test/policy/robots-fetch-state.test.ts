import { describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT, PRODUCT_TOKEN } from "../../src/policy/constants.js";
import {
  classifyRobotsAnswer,
  pathAndQueryOf,
  type RobotsFetchResult,
  robotsUrlFor,
  robotsVerdict,
} from "../../src/policy/robots/index.js";

describe("where robots.txt lives (P16, RFC 9309 §2.3)", () => {
  const cases: [string, string, string][] = [
    ["L1 a non-default port is kept", "http://h:8080/x", "http://h:8080/robots.txt"],
    ["L2 https stays https", "https://h/a/b?c#d", "https://h/robots.txt"],
    ["L2b http stays http", "http://h/a", "http://h/robots.txt"],
    ["L3 :443 on https is the default and elided", "https://h:443/x", "https://h/robots.txt"],
    ["L4 :80 on http is the default and elided", "http://h:80/x", "http://h/robots.txt"],
    ["L5 :443 on http is not a default port", "http://h:443/x", "http://h:443/robots.txt"],
    ["L6 www is a different host", "http://www.h.test/x", "http://www.h.test/robots.txt"],
    ["L7 the host is lower-cased", "http://H.Test/X", "http://h.test/robots.txt"],
    [
      "L8 an IDN host becomes punycode",
      "http://bücher.example/x",
      "http://xn--bcher-kva.example/robots.txt",
    ],
    ["L9 userinfo is dropped", "http://user:pw@h:81/x", "http://h:81/robots.txt"],
    [
      "L10 an IPv6 literal keeps its brackets and port",
      "http://[::1]:8080/x",
      "http://[::1]:8080/robots.txt",
    ],
  ];
  for (const [title, url, expected] of cases) {
    it(`P16 ${title}: ${url} → ${expected}`, () => {
      expect(robotsUrlFor(url)).toBe(expected);
    });
  }

  it("P16: https and http of one host are different files", () => {
    expect(robotsUrlFor("https://h/x")).not.toBe(robotsUrlFor("http://h/x"));
  });

  it("P16: a URL that is not http(s) has no robots.txt and is a caller bug", () => {
    expect(() => robotsUrlFor("ftp://h/x")).toThrow(/ftp:\/\/h\/x/);
    expect(() => robotsUrlFor("not a url")).toThrow(/not a url/);
  });
});

describe("what a robots.txt answer means (P20, RFC 9309 §2.3.1)", () => {
  const cases: [string, Parameters<typeof classifyRobotsAnswer>[0], string][] = [
    ["200 with the whole body gives rules", { status: 200, complete: true }, "rules"],
    ["204 gives (no) rules", { status: 204, complete: true }, "rules"],
    ["200 cut off mid-body is unreachable", { status: 200, complete: false }, "unreachable"],
    [
      "206 (Partial Content, no Range asked) is a part of the file: unreachable, as cut off",
      { status: 206, complete: true },
      "unreachable",
    ],
    ["404 allows everything", { status: 404, complete: true }, "allow-all"],
    ["401 allows everything (RFC 9309 §2.3.1.3)", { status: 401, complete: true }, "allow-all"],
    ["403 allows everything (RFC 9309 §2.3.1.3)", { status: 403, complete: true }, "allow-all"],
    ["410 allows everything", { status: 410, complete: true }, "allow-all"],
    ["451 allows everything", { status: 451, complete: true }, "allow-all"],
    ["429 is unreachable, never allow-all", { status: 429, complete: true }, "unreachable"],
    ["500 is unreachable", { status: 500, complete: true }, "unreachable"],
    ["503 is unreachable", { status: 503, complete: true }, "unreachable"],
    [
      "a network error (no status) is unreachable",
      { status: null, complete: false },
      "unreachable",
    ],
    [
      "a 3xx the caller did not follow is unreachable",
      { status: 301, complete: true },
      "unreachable",
    ],
    ["a 404 cut off mid-body is unreachable", { status: 404, complete: false }, "unreachable"],
    [
      "five redirects then 200 gives rules",
      { status: 200, complete: true, redirectsFollowed: 5 },
      "rules",
    ],
    [
      "a sixth redirect is unreachable",
      { status: 200, complete: true, redirectsFollowed: 6 },
      "unreachable",
    ],
    [
      "a sixth redirect is unreachable even to a 404",
      { status: 404, complete: true, redirectsFollowed: 6 },
      "unreachable",
    ],
  ];
  for (const [title, answer, expected] of cases) {
    it(`P20: ${title}`, () => {
      expect(classifyRobotsAnswer(answer)).toBe(expected);
    });
  }
});

describe("the verdict for a URL (P18, P20)", () => {
  const rules = (body: string): RobotsFetchResult => ({ state: "rules", body });

  it("P20: no robots.txt result yet means unknown, which never lets a request go", () => {
    expect(robotsVerdict(undefined, "http://h/x", DEFAULT_USER_AGENT).verdict).toBe("unknown");
  });

  it("P20: unreachable means unknown, with the reason", () => {
    const v = robotsVerdict({ state: "unreachable", reason: "503" }, "http://h/x", PRODUCT_TOKEN);
    expect(v).toEqual({ verdict: "unknown", reason: "robots.txt unreachable: 503" });
  });

  it("P20: allow-all allows every path", () => {
    const v = robotsVerdict({ state: "allow-all" }, "http://h/private/x", PRODUCT_TOKEN);
    expect(v).toEqual({ verdict: "allowed" });
  });

  it("P18: rules decide, with the chosen group's crawl-delay", () => {
    const body = "User-agent: public-records-check\nDisallow: /private\nCrawl-delay: 30\n";
    expect(robotsVerdict(rules(body), "http://h/private/a", DEFAULT_USER_AGENT)).toEqual({
      verdict: "disallowed",
      crawlDelaySeconds: 30,
    });
    expect(robotsVerdict(rules(body), "http://h/public", DEFAULT_USER_AGENT)).toEqual({
      verdict: "allowed",
      crawlDelaySeconds: 30,
    });
  });

  it("P18: the query is part of what is matched, the fragment is not", () => {
    const body = "User-agent: *\nDisallow: /*?print=\n";
    expect(robotsVerdict(rules(body), "http://h/a?print=1#x", PRODUCT_TOKEN).verdict).toBe(
      "disallowed",
    );
    expect(robotsVerdict(rules(body), "http://h/a#?print=1", PRODUCT_TOKEN).verdict).toBe(
      "allowed",
    );
  });

  it("P20: an empty or HTML body is rules with nothing in them: allowed", () => {
    expect(robotsVerdict(rules(""), "http://h/x", PRODUCT_TOKEN).verdict).toBe("allowed");
    const html = "<html><head><title>Oops</title></head><body>Disallow everything</body></html>";
    expect(robotsVerdict(rules(html), "http://h/x", PRODUCT_TOKEN).verdict).toBe("allowed");
  });

  it("P18: a bad URL is unknown, never allowed", () => {
    const v = robotsVerdict({ state: "allow-all" }, "mailto:x@y", PRODUCT_TOKEN);
    expect(v.verdict).toBe("unknown");
    expect(v.reason).toContain("mailto:x@y");
  });

  it("P18: the same body asked about many URLs gives the same answers (cache is sound)", () => {
    const body = "User-agent: *\nDisallow: /n\n";
    for (let i = 0; i < 50; i++) {
      expect(robotsVerdict(rules(body), `http://h/n${i}`, PRODUCT_TOKEN).verdict).toBe(
        "disallowed",
      );
      expect(robotsVerdict(rules(`${body}`), `http://h/y${i}`, PRODUCT_TOKEN).verdict).toBe(
        "allowed",
      );
    }
  });

  it("P17: pathAndQueryOf keeps what the request line carries", () => {
    expect(pathAndQueryOf(new URL("http://u:p@h:81"))).toBe("/");
    expect(pathAndQueryOf(new URL("http://h/a?"))).toBe("/a?");
    expect(pathAndQueryOf(new URL("http://h/a/b?c=d#e"))).toBe("/a/b?c=d");
    expect(pathAndQueryOf(new URL("http://h/a b"))).toBe("/a%20b");
  });
});
