import { describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import { originOf, readSite, siteFromInput, siteOf } from "../../src/policy/site.js";

describe("siteOf (P9: one lane per registrable domain)", () => {
  const rows: [string, string][] = [
    ["https://go.boarddocs.com/oh/cols/Board.nsf/Public", "boarddocs.com"],
    ["https://columbus.legistar.com/Calendar.aspx", "legistar.com"],
    ["https://cleveland.legistar.com/", "legistar.com"],
    ["https://a.ohio.gov/x", "ohio.gov"],
    ["https://b.ohio.gov/y", "ohio.gov"],
    ["https://ohio.gov/", "ohio.gov"],
    ["https://www.Columbus.GOV/Bids", "columbus.gov"],
    ["https://www.franklincountyohio.gov./", "franklincountyohio.gov"],
    ["https://www.city.oh.us/", "city.oh.us"],
    ["https://x.y.city.oh.us/", "city.oh.us"],
    ["https://news.bbc.co.uk/", "bbc.co.uk"],
    ["https://someone.github.io/page", "github.io"], // private PSL section ignored: cautious
    ["http://127.0.0.1:8080/a", "127.0.0.1"],
    ["http://127.0.0.2:9/", "127.0.0.2"],
    ["http://0x7f.1/", "127.0.0.1"], // WHATWG normalises IPv4 forms
    ["http://[::1]:8080/", "[::1]"],
    ["http://[0:0:0:0:0:0:0:1]/", "[::1]"],
    ["http://[2001:DB8::1]/", "[2001:db8::1]"],
    ["http://localhost:3000/", "localhost"],
    ["http://localhost./", "localhost"],
    ["https://gov/", "gov"],
    ["https://co.uk/", "co.uk"],
    ["https://bücher.example.de/", "example.de"],
    ["https://bücher.de/", "xn--bcher-kva.de"],
  ];
  it.each(rows)("P9: %s → %s", (url, site) => {
    expect(siteOf(url)).toBe(site);
  });

  it("P9: two hostnames of one site share a lane, two sites do not", () => {
    expect(siteOf("https://a.ohio.gov/")).toBe(siteOf("https://b.ohio.gov/"));
    expect(siteOf("http://127.0.0.2/")).not.toBe(siteOf("http://127.0.0.3/"));
    expect(siteOf("https://go.boarddocs.com/")).not.toBe(siteOf("https://legistar.com/"));
  });

  it("P9: an IPv4-mapped IPv6 literal is the IPv4 host's site, however it is written; other IPv6 literals stay their own", () => {
    for (const url of [
      "http://[::ffff:127.0.0.80]/",
      "http://[::FFFF:7f00:50]:8080/x",
      "https://[0:0:0:0:0:ffff:7f00:0050]/",
    ])
      expect(siteOf(url), url).toBe("127.0.0.80");
    expect(siteOf("http://[::ffff:a00:1]/")).toBe("10.0.0.1");
    expect(siteOf("http://[2001:db8::ffff:7f00:50]/")).toBe("[2001:db8::ffff:7f00:50]");
    expect(siteOf("http://[::1]/")).toBe("[::1]");
    expect(readSite("[::ffff:127.0.0.80]")).toEqual({ ok: true, site: "127.0.0.80" });
  });

  it("P9: a URL that does not parse is a bug: NorError E_INTERNAL naming it", () => {
    for (const bad of ["not a url", "", "http://", "https://exa mple.com/"]) {
      try {
        siteOf(bad);
        expect.unreachable(`siteOf(${bad}) should throw`);
      } catch (e) {
        expect(e).toBeInstanceOf(NorError);
        expect((e as NorError).code).toBe("E_INTERNAL");
      }
    }
  });
});

describe("originOf", () => {
  const rows: [string, string][] = [
    ["https://www.columbus.gov/bids?x=1#y", "https://www.columbus.gov"],
    ["https://www.columbus.gov:443/", "https://www.columbus.gov"],
    ["http://127.0.0.2:8080/robots.txt", "http://127.0.0.2:8080"],
    ["HTTP://Example.COM:80/", "http://example.com"],
    ["https://example.com:8443/", "https://example.com:8443"],
    ["http://[::1]:9000/", "http://[::1]:9000"],
  ];
  it.each(rows)("P16: origin of %s is %s", (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });
  it("P16: throws NorError for a URL that does not parse", () => {
    expect(() => originOf("::nope")).toThrow(NorError);
  });
});

describe("readSite (what a person types as a site, host or URL)", () => {
  const good: [string, string][] = [
    ["www.Columbus.gov", "columbus.gov"],
    ["  https://a.ohio.gov/agendas?x=1  ", "ohio.gov"],
    ["x.gov.", "x.gov"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["127.0.0.2", "127.0.0.2"],
    ["http://[::1]:8080/", "[::1]"],
    ["localhost", "localhost"],
    ["intranet", "intranet"],
  ];
  it.each(good)("P9: %j is the site %s", (text, site) => {
    expect(readSite(text)).toEqual({ ok: true, site });
    expect(siteFromInput(text)).toBe(site);
  });

  const bad: [string, string][] = [
    ["", "it is empty"],
    ["a b.gov", "it contains a space"],
    ["http://", "no host name can be read from it"],
    ["nosuch..gov", "nosuch..gov has an empty label (two dots in a row, or a dot at the start)"],
    ["x.gov..", "x.gov. has an empty label (two dots in a row, or a dot at the start)"],
    ["-x.gov", "-x.gov has a label that starts or ends with a hyphen"],
    ["x-.ohio.gov", "x-.ohio.gov has a label that starts or ends with a hyphen"],
    [`${"a".repeat(64)}.gov`, `${"a".repeat(64)}.gov has a label longer than 63 characters`],
    [
      `${"abcdefghi.".repeat(26)}gov`,
      `${"abcdefghi.".repeat(26)}gov is longer than 253 characters`,
    ],
    [
      "gov",
      "gov is a public suffix, shared by every site under it, not one site (name one, e.g. example.gov)",
    ],
    [
      "https://co.uk/",
      "co.uk is a public suffix, shared by every site under it, not one site (name one, e.g. example.co.uk)",
    ],
  ];
  it.each(bad)("P9: %j names no site: %s", (text, reason) => {
    expect(readSite(text)).toEqual({ ok: false, reason });
    expect(siteFromInput(text)).toBeUndefined();
  });

  // The URL parser reads a part with a leading zero as octal (054 is 44), a person as decimal.
  const ambiguous: [string, string][] = [
    [
      "127.0.0.054",
      "127.0.0.054 is an IPv4 address with a part written with a leading zero (054), which is ambiguous: the URL parser reads it as octal (127.0.0.44), a person usually means decimal (127.0.0.54); type it without leading zeros, as the checker writes it",
    ],
    [
      "https://user@010.0.0.1:8080/x",
      "010.0.0.1 is an IPv4 address with a part written with a leading zero (010), which is ambiguous: the URL parser reads it as octal (8.0.0.1), a person usually means decimal (10.0.0.1); type it without leading zeros, as the checker writes it",
    ],
    [
      "127.0.0.09",
      "127.0.0.09 is an IPv4 address with a part written with a leading zero (09), which is ambiguous: the URL parser reads it as octal, a person usually means decimal (127.0.0.9); type it without leading zeros, as the checker writes it",
    ],
    [
      "127.1",
      "127.1 is not an IPv4 address as the checker writes it: URLs read it as 127.0.0.1 (a shortened, hexadecimal or encoded form); type 127.0.0.1 if that is the site",
    ],
    [
      "0x7f.0.0.1",
      "0x7f.0.0.1 is not an IPv4 address as the checker writes it: URLs read it as 127.0.0.1 (a shortened, hexadecimal or encoded form); type 127.0.0.1 if that is the site",
    ],
  ];
  it.each(ambiguous)(
    "P9: %j, an IPv4 address not written as the checker stores it, names no site: %s",
    (text, reason) => {
      expect(readSite(text)).toEqual({ ok: false, reason });
      expect(siteFromInput(text)).toBeUndefined();
    },
  );

  it("P9: an IPv4 address typed as the checker stores it is that site, with a port, user-info, path or trailing dot", () => {
    for (const [text, site] of [
      ["127.0.0.54", "127.0.0.54"],
      ["127.0.0.54.", "127.0.0.54"],
      ["http://u@127.0.0.54:8080/a?b#c", "127.0.0.54"],
      ["0.0.0.0", "0.0.0.0"],
      ["10.0.0.100", "10.0.0.100"],
    ])
      expect(readSite(text!), text).toEqual({ ok: true, site });
  });
});
