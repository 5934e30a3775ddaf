import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSite } from "../../src/policy/site.js";
import { urlCredentialProblem } from "../../src/sources/catalog/credentials.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { CatalogError } from "../../src/sources/catalog/problems.js";
import { discoverCandidates } from "../../src/sources/discover.js";
import { nor } from "../cli/cli-capture.js";
import { problems } from "./catalog-problems.js";

/**
 * P3: "the address fetched, stored and shown is the one written". An outside tester found
 * addresses the URL parser rewrites that the catalog took: a raw space (stored and shown with it,
 * requested and logged as %20), an empty user-info (`http://:@host/ui`, requested as
 * `http://host/ui`), port 0, and a full-width host (`ｋｅｎｔ.gov`, requested from kent.gov).
 */
const GOV = `governments:
  - id: city-of-x
    name: City of X
    kind: city
`;
const source = (url: string) =>
  `${GOV}sources:\n  - id: x-agendas\n    government: city-of-x\n    records: agendas\n    access: feed\n    url: "${url}"\n`;
/** The problems of a catalog with one source at `url` (none: []). */
function said(url: string): string[] {
  try {
    parseCatalog(source(url), "cat.yaml");
    return [];
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
    return e.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.path}: ${p.message}`);
  }
}

describe("P3: an address the URL parser rewrites is refused, naming file:line", () => {
  it("P3: a raw space, stored as written but sent as %20", () => {
    expect(said("http://x.gov/a b")).toEqual([
      "cat.yaml:10:10: sources[0].url: URL contains a space, which is not sent as written (the URL parser reads it as http://x.gov/a%20b): write %20 for a space meant, or none",
    ]);
    // At the end, the parser drops it: refused alike.
    expect(said("http://x.gov/a ")).toEqual([expect.stringContaining("URL contains a space")]);
    expect(said("http://x.gov/a%20b")).toEqual([]);
  });

  it("P3: an empty user-info, which the parser drops, is user-info: refused as a credential", () => {
    expect(said("http://:@x.gov/ui")).toEqual([
      'cat.yaml:10:10: sources[0].url: URL carries user-info (":@", empty, which the URL parser drops); the checker never signs in (P3)',
    ]);
    expect(said("http://@x.gov/ui")).toEqual([
      expect.stringContaining('URL carries user-info ("@", empty'),
    ]);
    expect(urlCredentialProblem("https://:@x.gov/")).toContain("(P3)");
    // In a website, an alternate and a lead too (the credential pass reads every value).
    const text = `governments:
  - { id: city-of-x, name: City of X, kind: city, website: "https://:@x.gov/" }
sources:
  - id: x-feed
    government: city-of-x
    records: notices
    url: https://x.gov/feed
    alternates:
      - { access: feed, url: "https://@x.gov/rss" }
leads:
  - { government: city-of-x, records: minutes, url: "https://:@x.gov/m", why: seen }
`;
    expect(problems(text).map((p) => p.replace(/: URL carries user-info .*/, ""))).toEqual([
      "cat.yaml:2:60: governments[0].website",
      "cat.yaml:9:30: sources[0].alternates[0].url",
      "cat.yaml:11:53: leads[0].url",
    ]);
  });

  it("port 0 is a port that cannot be, said as such", () => {
    expect(said("https://kent.gov:0/x")).toEqual([
      "cat.yaml:10:10: sources[0].url: URL's port 0 cannot be: no server listens on port 0 (ports are 1 to 65535)",
    ]);
    expect(said("https://kent.gov:000/x")).toEqual([
      expect.stringContaining("URL's port 000 cannot be"),
    ]);
  });

  it("P3: a full-width host, which the parser maps to kent.gov, is refused with the name it reads", () => {
    expect(said("https://ｋｅｎｔ.gov/x")).toEqual([
      "cat.yaml:10:10: sources[0].url: host ｋｅｎｔ.gov is not a host name as the checker writes it: URLs read it as kent.gov (they map full-width and other look-alike characters, and decode %-escapes); type kent.gov if that is the site",
    ]);
    for (const url of ["https://kent。gov/x", "https://ke%6Et.gov/x", "https://ke\u00adnt.gov/x"])
      expect(said(url), url).toEqual([expect.stringContaining("URLs read it as kent.gov")]);
    // `nor site` and `nor log --site` read a host by the same rule.
    const site = readSite("ｋｅｎｔ.gov");
    expect(site.ok).toBe(false);
    expect(site.ok ? "" : site.reason).toContain("URLs read it as kent.gov");
  });

  it("P3: other rewrites: a tab, a dot segment, an empty or zero-padded port, characters sent encoded", () => {
    for (const [url, message] of [
      ["http://x.gov/a\\tb", "URL contains a tab or a line break, which the URL parser drops"],
      ["http://x.gov/a/../b", "URL's path has a . or .. segment, which the URL parser resolves"],
      ["http://x.gov/%2E%2E/b", "URL's path has a . or .. segment"],
      ["http://x.gov:/a", "URL has a : after its host with no port"],
      ["http://x.gov:0080/a", "URL's port 0080 is not written as the URL parser writes it"],
      [
        "http://x.gov:08080/a",
        "URL's port 08080 is not written as the URL parser writes it (the URL parser reads it as http://x.gov:8080/a): write 8080",
      ],
      ["http://x.gov/{year}", "URL contains { }, which the URL parser sends percent-encoded"],
      ["http://x.gov/a?q=O'Brien", "URL contains ', which the URL parser sends percent-encoded"],
      ["http://x.gov/a\\u00a0b", "URL contains a white-space character (U+00A0)"],
    ])
      expect(said(url as string), url).toEqual([
        expect.stringMatching(
          new RegExp(`^cat\\.yaml:10:10: sources\\[0\\]\\.url: ${regexpOf(message as string)}`),
        ),
      ]);
  });

  it("P3: still accepted: what does not change the address", () => {
    for (const url of [
      "HTTPS://WWW.X.GOV/feed", // scheme and host in any case
      "https://www.x.gov", // a bare origin (its / is supplied)
      "https://www.x.gov?q=1",
      "https://www.x.gov:443/feed", // the scheme's default port written out
      "http://www.x.gov:80/feed",
      "http://www.x.gov:8080/feed",
      "https://www.x.gov./feed",
      "https://www.x.gov/café?q=é#à", // beyond ASCII: sent in UTF-8, percent-encoded
      "https://café.example.gov/",
      "https://CAFÉ.example.gov/",
      "https://xn--caf-dma.example.gov/",
      "https://www.x.gov/a%5Cb?q=%7e",
      "https://www.x.gov/Search?dropsv={}&dropev={}", // braces stay in a query
      "http://[::1]:8080/feed",
      "http://127.0.0.1/feed",
      "https://www.x.gov/a?",
      "https://www.x.gov/a#",
    ])
      expect(said(url), url).toEqual([]);
    const c = parseCatalog(source("https://www.x.gov:443/café"), "ok.yaml");
    expect(c.sources[0]!.url).toBe("https://www.x.gov:443/café");
  });

  it("nor discover never offers an address the catalog refuses (port 0)", () => {
    const home = `<a href="https://x.legistar.com:0/Calendar.aspx">Meetings</a>
      <a href="https://y.legistar.com/Calendar.aspx">Meetings</a>`;
    expect(discoverCandidates(home, "https://www.x.gov/").map((c) => c.url)).toEqual([
      "https://y.legistar.com/Calendar.aspx",
    ]);
  });
});

describe("nor catalog check names each, exit 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-url-rewrites-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("P3: the tester's four addresses, each at its file:line:col", async () => {
    const f = join(dir, "c.yaml");
    writeFileSync(
      f,
      `${GOV}sources:
  - { id: a, government: city-of-x, records: notices, access: feed, url: "http://x.gov/a b" }
  - { id: b, government: city-of-x, records: notices, access: feed, url: "http://:@x.gov/ui" }
  - { id: c, government: city-of-x, records: notices, access: feed, url: "https://kent.gov:0/x" }
  - { id: d, government: city-of-x, records: notices, access: feed, url: "https://ｋｅｎｔ.gov/x" }
`,
    );
    const r = await nor("catalog", "check", f);
    expect(r.code).toBe(2);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain(`${f}:6:74: sources[0].url: URL contains a space`);
    expect(lines[1]).toContain(`${f}:7:74: sources[1].url: URL carries user-info`);
    expect(lines[2]).toContain(`${f}:8:74: sources[2].url: URL's port 0 cannot be`);
    expect(lines[3]).toContain(`${f}:9:74: sources[3].url: host ｋｅｎｔ.gov is not a host name`);
  });
});

function regexpOf(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
