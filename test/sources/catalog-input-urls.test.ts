import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSite } from "../../src/policy/site.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { CatalogError } from "../../src/sources/catalog/problems.js";
import { MAX_URL_LENGTH } from "../../src/sources/catalog/schema.js";
import { nor } from "../cli/cli-capture.js";

const GOV = `governments:
  - id: city-of-x
    name: City of X
    kind: city
`;
const source = (url: string) =>
  `${GOV}sources:\n  - id: x-agendas\n    government: city-of-x\n    records: agendas\n    access: feed\n    url: "${url}"\n`;

/** The problems of a catalog text, `file:line:col: path: message` (none: []). */
function problems(text: string): string[] {
  try {
    parseCatalog(text, "cat.yaml");
    return [];
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
    return e.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.path}: ${p.message}`);
  }
}

describe("catalog URLs", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-catalog-input-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a URL longer than MAX_URL_LENGTH is refused at its file:line:col, exit 2", async () => {
    const base = "https://www.x.gov/";
    const f = join(dir, "long.yaml");
    writeFileSync(f, source(`${base}${"a".repeat(100_000)}`));
    const r = await nor("catalog", "check", f);
    expect(r.stdout).toBe(
      `${f}:10:10: sources[0].url: URL is 100,018 characters long, more than the 2,048 a catalog URL may have\n`,
    );
    expect(r.code).toBe(2);

    const at = (n: number) => `${base}${"a".repeat(n - base.length)}`;
    expect(problems(source(at(MAX_URL_LENGTH)))).toEqual([]);
    expect(problems(source(at(MAX_URL_LENGTH + 1)))).toEqual([
      "cat.yaml:10:10: sources[0].url: URL is 2,049 characters long, more than the 2,048 a catalog URL may have",
    ]);
  });

  it("the length is of the URL as requested: non-ASCII counts percent-encoded", () => {
    // 700 characters written, 4,200 sent (é is %C3%A9).
    const url = `https://www.x.gov/${"é".repeat(700)}`;
    expect(problems(source(url))).toEqual([
      "cat.yaml:10:10: sources[0].url: URL is 4,218 characters long once percent-encoded, more than the 2,048 a catalog URL may have",
    ]);
  });

  it("an alternate's URL, a government's website and a lead's address are bounded too", () => {
    const long = `https://www.x.gov/${"b".repeat(MAX_URL_LENGTH)}`;
    const text = `governments:
  - id: city-of-x
    name: City of X
    kind: city
    website: "${long}"
sources:
  - id: x-agendas
    government: city-of-x
    records: agendas
    url: https://www.x.gov/feed
    alternates:
      - { access: feed, url: "${long}" }
leads:
  - { government: city-of-x, records: minutes, url: "www.x.gov/${"c".repeat(MAX_URL_LENGTH)}", why: seen }
`;
    expect(problems(text).map((p) => p.replace(/ URL is .*/, ""))).toEqual([
      "cat.yaml:5:14: governments[0].website:",
      "cat.yaml:12:30: sources[0].alternates[0].url:",
      "cat.yaml:14:53: leads[0].url:",
    ]);
  });

  it("hosts are checked by the rule `nor log --site` reads them with (policy/site.ts)", async () => {
    const f = join(dir, "host.yaml");
    writeFileSync(f, source("http://x..gov/"));
    const r = await nor("catalog", "check", f);
    const why = readSite("http://x..gov/");
    expect(why.ok).toBe(false);
    expect(r.stdout).toBe(`${f}:10:10: sources[0].url: host ${why.ok ? "" : why.reason}\n`);
    expect(r.stdout).toContain("x..gov has an empty label");
    expect(r.code).toBe(2);

    for (const [url, said] of [
      ["https://-x.gov/feed", "host -x.gov has a label that starts or ends with a hyphen"],
      ["https://gov/feed", "host gov is a public suffix, shared by every site under it"],
      ["https://oh.us./feed", "host oh.us is a public suffix"],
      [`https://${"a".repeat(64)}.gov/`, "has a label longer than 63 characters"],
    ])
      expect(problems(source(url as string))).toEqual([expect.stringContaining(said as string)]);

    const text = `${GOV.replace("kind: city", "kind: city\n    website: https://www..x.gov/")}sources:
  - id: x-agendas
    government: city-of-x
    records: agendas
    url: https://www.x.gov/feed
    alternates:
      - { access: feed, url: "https://x-.gov/rss" }
`;
    expect(problems(text)).toEqual([
      expect.stringMatching(
        /^cat\.yaml:5:14: governments\[0\]\.website: host www\.\.x\.gov has an empty label/,
      ),
      expect.stringMatching(
        /^cat\.yaml:12:30: sources\[0\]\.alternates\[0\]\.url: host x-\.gov has a label/,
      ),
    ]);
  });

  it("an IPv4 address the URL parser reads otherwise than it is written is refused, as `nor site` refuses it (an outside tester's night asked 127.0.0.44 for a catalog's 127.0.0.054)", () => {
    for (const [url, said] of [
      [
        "http://127.0.0.054:8080/feed",
        "host 127.0.0.054 is an IPv4 address with a part written with a leading zero (054), which is ambiguous",
      ],
      ["http://0x7f.1/feed", "host 0x7f.1 is not an IPv4 address as the checker writes it"],
      ["http://2130706433/feed", "URLs read it as 127.0.0.1"],
      // Both readings the same address: not ambiguous, only not written as the checker does.
      ["http://10.0.0.01/feed", "URLs read it as 10.0.0.1"],
    ])
      expect(problems(source(url as string))).toEqual([expect.stringContaining(said as string)]);
    // Only the host is judged here: a space further on is no host's problem. It is refused
    // once, as an address not sent as written (catalog-url-rewrites.test.ts).
    for (const url of [
      "https://www.x.gov/public notices/feed.xml",
      "https://www.x.gov/search?q=a b",
      "https://www.x.gov/a\u00a0b",
    ]) {
      const said = problems(source(url));
      expect(said, url).toEqual([expect.stringMatching(/: URL contains a (space|white-space)/)]);
      expect(said[0], url).not.toContain("host");
    }
  });

  it("a port that cannot be is said as such, not as an address that is no URL", () => {
    for (const [url, said] of [
      ["http://127.0.0.1:99999/feed", "URL's port 99999 is more than 65535, the largest there is"],
      ["http://www.x.gov:8x/feed", 'URL\'s port "8x" is not a number'],
      ["http://[::1]:70000/feed", "URL's port 70000 is more than 65535"],
    ])
      expect(problems(source(url as string))).toEqual([expect.stringContaining(said as string)]);
  });

  it("hosts a night may request still pass: names, a trailing dot, IP literals, localhost", () => {
    for (const url of [
      "https://www.akronohio.gov/feed",
      "https://www.akronohio.gov./feed",
      "HTTPS://WWW.AKRONOHIO.GOV/feed",
      "http://127.0.0.1:8080/feed",
      "http://[::1]/feed",
      "http://localhost/feed",
      "https://intranet/feed",
      "https://xn--caf-dma.example.gov/",
      "https://café.example.gov/",
    ])
      expect(problems(source(url))).toEqual([]);
  });
});
