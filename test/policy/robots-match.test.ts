import { describe, expect, it } from "vitest";
import { normalisePath, normalisePattern, patternMatches } from "../../src/policy/robots/index.js";
import { allowedOnBothPaths } from "./robots-paths.js";

const G = "User-agent: public-records-check\n";
const H = "http://h.test";

interface Row {
  id: string;
  title: string;
  rules: string;
  url: string;
  allowed: boolean;
}

// biome-ignore format: one row per rule reads as a table
const rows: Row[] = [
  // Matching, RFC 9309 §2.2.2–2.2.3.
  { id: "D1", title: "a pattern matches as a path prefix", rules: "Disallow: /fish", url: `${H}/fishheads/x.html`, allowed: false },
  { id: "D1b", title: "a prefix match includes the query", rules: "Disallow: /fish", url: `${H}/fish?id=1`, allowed: false },
  { id: "D1c", title: "matching is anchored at the path's first octet", rules: "Disallow: /fish", url: `${H}/catfish`, allowed: true },
  { id: "D2", title: "matching is case-sensitive", rules: "Disallow: /fish", url: `${H}/Fish`, allowed: true },
  { id: "D3", title: "`*` matches any run, slashes included", rules: "Disallow: /*.php", url: `${H}/a/b/c.php`, allowed: false },
  { id: "D3b", title: "`*` matches the empty run", rules: "Disallow: /*.php", url: `${H}/.php`, allowed: false },
  { id: "D4", title: "a final `$` anchors the end", rules: "Disallow: /*.php$", url: `${H}/x.php`, allowed: false },
  { id: "D4b", title: "a final `$` rejects a longer path", rules: "Disallow: /*.php$", url: `${H}/x.php?y=1`, allowed: true },
  { id: "D5", title: "a `$` before the end is a literal `$`", rules: "Disallow: /a$b", url: `${H}/a$b`, allowed: false },
  { id: "D5b", title: "a `$` before the end is not an anchor", rules: "Disallow: /a$b", url: `${H}/a`, allowed: true },
  { id: "D6", title: "the longest matching rule wins (Allow longer)", rules: "Disallow: /p\nAllow: /p/ok", url: `${H}/p/ok/1`, allowed: true },
  { id: "D6b", title: "the longest matching rule wins (Disallow longer)", rules: "Allow: /p\nDisallow: /p/no", url: `${H}/p/no/1`, allowed: false },
  { id: "D7", title: "Allow wins a tie", rules: "Disallow: /p\nAllow: /p", url: `${H}/p`, allowed: true },
  { id: "D7b", title: "Allow wins a tie whatever the order", rules: "Allow: /p\nDisallow: /p", url: `${H}/p`, allowed: true },
  { id: "D8", title: "Allow wins a tie between wildcard patterns of equal length", rules: "Disallow: /*x\nAllow: /a*", url: `${H}/ax`, allowed: true },
  { id: "D9", title: "specificity is pattern length, not octets matched: Allow /* loses to Disallow /ab", rules: "Allow: /*\nDisallow: /ab", url: `${H}/abc`, allowed: false },
  { id: "D10", title: "a query pattern with `*`", rules: "Disallow: /*?sort=", url: `${H}/list?sort=up&page=2`, allowed: false },
  { id: "D10b", title: "a query pattern does not match a path without the query", rules: "Disallow: /*?sort=", url: `${H}/list`, allowed: true },
  { id: "D11", title: "the fragment is never matched (`$` anchors before it)", rules: "Disallow: /a$", url: `${H}/a#frag`, allowed: false },
  { id: "D11b", title: "`#` in a rule starts a comment, even inside a pattern", rules: "Disallow: /a#b", url: `${H}/a/x`, allowed: false },
  { id: "D12", title: "/robots.txt is always allowed", rules: "Disallow: /", url: `${H}/robots.txt`, allowed: true },
  { id: "D13", title: "an empty path is `/`", rules: "Disallow: /$", url: H, allowed: false },
  { id: "D13b", title: "`Disallow: /$` only closes the root", rules: "Disallow: /$", url: `${H}/a`, allowed: true },
  { id: "D14", title: "`Disallow: /*` closes everything", rules: "Disallow: /*", url: `${H}/any/thing?x`, allowed: false },
  { id: "D15", title: "`*` in the middle", rules: "Disallow: /a*c", url: `${H}/a/x/cd`, allowed: false },
  { id: "D16", title: "no matching rule: allowed", rules: "Disallow: /a\nAllow: /b", url: `${H}/c`, allowed: true },
  { id: "D17", title: "an empty `?` query is dropped, as a night sends the URL (/a)", rules: "Disallow: /a?$", url: `${H}/a?`, allowed: true },
  { id: "D17b", title: "the URL without its empty `?` is what a rule for /a matches", rules: "Disallow: /a$", url: `${H}/a?`, allowed: false },

  // Percent-encoding, RFC 9309 §2.2.2 (P17).
  { id: "E1", title: "%7E in the URL equals ~ in the pattern", rules: "Disallow: /~foo", url: `${H}/%7Efoo`, allowed: false },
  { id: "E1b", title: "~ in the URL equals %7e in the pattern", rules: "Disallow: /%7efoo", url: `${H}/~foo`, allowed: false },
  { id: "E2", title: "Figure 4: /foo/bar/%62%61%7A equals /foo/bar/baz", rules: "Disallow: /foo/bar/%62%61%7A", url: `${H}/foo/bar/baz`, allowed: false },
  { id: "E3", title: "a UTF-8 pattern equals its %-encoded URL", rules: "Disallow: /foo/bar/ツ", url: `${H}/foo/bar/%E3%83%84`, allowed: false },
  { id: "E3b", title: "a %-encoded pattern equals a UTF-8 URL", rules: "Disallow: /foo/bar/%e3%83%84", url: `${H}/foo/bar/ツ`, allowed: false },
  { id: "E4", title: "%2F is not /", rules: "Disallow: /a%2Fb", url: `${H}/a/b`, allowed: true },
  { id: "E4b", title: "%2F matches %2F", rules: "Disallow: /a%2Fb", url: `${H}/a%2Fb`, allowed: false },
  { id: "E5", title: "hex digits are case-insensitive", rules: "Disallow: /a%2fb", url: `${H}/a%2Fb`, allowed: false },
  { id: "E6", title: "Figure 6: %2A in a pattern is a literal *", rules: "Disallow: /path/file-with-a-%2A.html", url: `${H}/path/file-with-a-*.html`, allowed: false },
  { id: "E6b", title: "%2A is not a wildcard", rules: "Disallow: /path/file-with-a-%2A.html", url: `${H}/path/file-with-a-b.html`, allowed: true },
  { id: "E7", title: "%24 in a pattern is a literal $", rules: "Disallow: /price%24", url: `${H}/price$/x`, allowed: false },
  { id: "E8", title: "| in a pattern equals %7C in the URL", rules: "Disallow: /a|b", url: `${H}/a%7Cb`, allowed: false },
  { id: "E8b", title: "%7C in a pattern equals | in the URL", rules: "Disallow: /a%7cb", url: `${H}/a|b`, allowed: false },
  { id: "E9", title: "^ and ` in a pattern equal their escapes", rules: "Disallow: /a^b`c", url: `${H}/a%5Eb%60c`, allowed: false },
  { id: "E10", title: "%20 in a pattern equals a space in the URL", rules: "Disallow: /a%20b", url: `${H}/a b`, allowed: false },
  { id: "E11", title: "[ ] in a pattern equal %5B %5D in the URL", rules: "Disallow: /a[1]", url: `${H}/a%5B1%5D`, allowed: false },
  { id: "E12", title: "a lone % in a pattern equals a lone % in the URL", rules: "Disallow: /100%", url: `${H}/100%`, allowed: false },
  { id: "E12b", title: "a lone % equals %25", rules: "Disallow: /100%25", url: `${H}/100%`, allowed: false },
  { id: "E13", title: "%3F is not the query's ?", rules: "Disallow: /a%3F", url: `${H}/a?x`, allowed: true },
  { id: "E14", title: "an unreserved escape in the query is decoded too", rules: "Disallow: /*?q=a", url: `${H}/s?q=%61`, allowed: false },
  { id: "E15", title: "RFC 9309 §2.2.2: a `'` in a query pattern matches the URL as written (sent as %27)", rules: "Disallow: /search?q='x'", url: `${H}/search?q='x'`, allowed: false },
  { id: "E15b", title: "a `'` in a pattern equals %27 in the URL's path", rules: "Disallow: /it's", url: `${H}/it%27s`, allowed: false },
  { id: "E15c", title: "%27 in a pattern equals `'` in the URL's query", rules: "Disallow: /*?q=%27", url: `${H}/s?q='a`, allowed: false },
  { id: "E15d", title: "a `'` in the path matches as written", rules: "Disallow: /it's", url: `${H}/it's/x`, allowed: false },
  { id: "E15e", title: "a `'` is not any other octet", rules: "Disallow: /*?q='x'", url: `${H}/search?q=x`, allowed: true },
];

// Every row through `nor robots check` and through the night's cache-then-parse path (P18).
describe("robots.txt matching table, CLI and night (P17, P18)", () => {
  for (const r of rows) {
    it(`P17 ${r.id}: ${r.title} → ${r.allowed ? "allowed" : "disallowed"}`, async () => {
      const want = r.allowed;
      expect(await allowedOnBothPaths(G + r.rules, r.url)).toEqual({ cli: want, night: want });
    });
  }
});

describe("the matcher's building blocks", () => {
  it("P17: normalisePath adds the leading slash, drops the fragment, escapes * and $", () => {
    expect(normalisePath("")).toBe("/");
    expect(normalisePath("?q=1")).toBe("/?q=1");
    expect(normalisePath("/a*b$c#frag")).toBe("/a%2Ab%24c");
    expect(normalisePath("/%7e%41%2f%e3")).toBe("/~A%2F%E3");
    expect(normalisePath("/it's?q=%27")).toBe("/it%27s?q=%27");
  });

  it("P17: normalisePattern keeps the wildcard and the final anchor only", () => {
    expect(normalisePattern("/a*b$c$")).toBe("/a*b%24c$");
    expect(normalisePattern("/it's*%27$")).toBe("/it%27s*%27$");
    expect(normalisePattern("/ü")).toBe("/%C3%BC");
    expect(normalisePattern("/😀")).toBe("/%F0%9F%98%80");
    expect(normalisePattern("/\uD800x")).toBe("/%EF%BF%BDx");
  });

  it("P17: patternMatches implements * and a final $", () => {
    expect(patternMatches("/a*c$", "/abc")).toBe(true);
    expect(patternMatches("/a*c$", "/abcd")).toBe(false);
    expect(patternMatches("/a*c*$", "/abcd")).toBe(true);
    expect(patternMatches("*", "/")).toBe(true);
    expect(patternMatches("$", "/")).toBe(false);
    expect(patternMatches("/a**b", "/ab")).toBe(true);
    expect(patternMatches("/*ab*ab$", "/abab")).toBe(true);
    expect(patternMatches("/*ab*ab$", "/aba")).toBe(false);
  });
});
