import { describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT, ROBOTS_MAX_BYTES } from "../../src/policy/constants.js";
import {
  decodeRobotsBody,
  isAllowed,
  parseCrawlDelay,
  parseRobots,
  policyFor,
} from "../../src/policy/robots/index.js";
import { allowedOnBothPaths, bothReadings } from "./robots-paths.js";

const enc = new TextEncoder();
const H = "http://h.test";

function policy(body: Uint8Array) {
  return policyFor(parseRobots(body), DEFAULT_USER_AGENT);
}

/** Both paths (`nor robots check` and the night) agree that `path` is allowed, or not. */
async function expectBoth(body: string | Uint8Array, path: string, allowed: boolean) {
  expect(await allowedOnBothPaths(body, `${H}${path}`)).toEqual({ cli: allowed, night: allowed });
}

/** A comment line of exactly `n` bytes including its LF. */
function filler(n: number): string {
  return `#${"x".repeat(n - 2)}\n`;
}

describe("the 500 KiB limit (P17, RFC 9309 §2.5)", () => {
  const head = "User-agent: *\nDisallow: /pub\n";

  it("P17 Z1: a rule that ends inside the limit is read", async () => {
    const tail = "Disallow: /x\n";
    const body = head + filler(ROBOTS_MAX_BYTES - head.length - tail.length) + tail;
    expect(enc.encode(body).length).toBe(ROBOTS_MAX_BYTES);
    await expectBoth(body, "/x", false);
  });

  it("P17 Z2: a rule past the limit is ignored", async () => {
    const body = `${head}${filler(ROBOTS_MAX_BYTES)}Disallow: /x\n`;
    await expectBoth(body, "/x", true);
    await expectBoth(body, "/pub", false);
  });

  it("P17 Z3: a line cut by the limit is dropped, not read short", async () => {
    // Cut inside `Allow: /public/page`; kept short it would read `Allow: /pub`, tie the
    // Disallow and (Allow winning ties) open all of /pub.
    const cutAt = "Allow: /pub".length;
    const pad = ROBOTS_MAX_BYTES - head.length - cutAt;
    const body = `${head}${filler(pad)}Allow: /public/page\n`;
    const p = policy(enc.encode(body));
    expect(p.rules.map((r) => r.pattern)).toEqual(["/pub"]);
    expect(isAllowed(p, "/public/other")).toBe(false);
    expect(decodeRobotsBody(enc.encode(body)).truncated).toBe(true);
    await expectBoth(body, "/public/other", false);
  });

  it("P17 Z4: a line that ends exactly at the limit is kept", async () => {
    const line = "Allow: /public/page";
    const body = `${head}${filler(ROBOTS_MAX_BYTES - head.length - line.length)}${line}\nDisallow: /x`;
    expect(enc.encode(body).length).toBeGreaterThan(ROBOTS_MAX_BYTES);
    await expectBoth(body, "/public/page", true);
    await expectBoth(body, "/x", true);
  });

  it("P17 Z5: the limit counts the file's bytes, not characters", async () => {
    // 200,000 three-byte characters: 600,000 bytes although only 200,000 characters long.
    const body = `${head}#${"ツ".repeat(200_000)}\nDisallow: /x\n`;
    await expectBoth(body, "/x", true);
  });

  it("P17 Z6: the BOM does not count against the limit", async () => {
    const tail = "Disallow: /x\n";
    const text = head + filler(ROBOTS_MAX_BYTES - head.length - tail.length) + tail;
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...enc.encode(text)]);
    await expectBoth(withBom, "/x", false);
  });

  it("P17/P18 Z7: a 171 KiB Latin-1 file keeps its last line on both paths (decoded once)", async () => {
    // 175,000 bytes of é in Latin-1 (0xE9, not UTF-8): measured on the file it is far below
    // 500 KiB; decoded and measured again it would be three times as long and lose its end.
    const body = Uint8Array.from([
      ...enc.encode("User-agent: *\nDisallow: /pub\n# "),
      ...new Uint8Array(175_000).fill(0xe9),
      ...enc.encode("\nDisallow: /\n"),
    ]);
    expect(body.length).toBeLessThan(ROBOTS_MAX_BYTES / 2);
    await expectBoth(body, "/anything", false);
  });

  it("P17 Z8: the cut falls at 500 KiB of the file's bytes, whatever they decode to", async () => {
    // Odd bytes up to just before the limit, then a rule that ends exactly at it.
    const tail = "\nDisallow: /x\n";
    const pad = ROBOTS_MAX_BYTES - head.length - 1 - tail.length;
    const body = Uint8Array.from([
      ...enc.encode(`${head}#`),
      ...new Uint8Array(pad).fill(0xff),
      ...enc.encode(tail),
      ...enc.encode("Disallow: /y\n"),
    ]);
    expect(body.length).toBe(ROBOTS_MAX_BYTES + "Disallow: /y\n".length);
    await expectBoth(body, "/x", false);
    await expectBoth(body, "/y", true);
  });
});

describe("Crawl-delay (site-owner page: honoured when longer than 2 s)", () => {
  const cases: [string, string, number | undefined][] = [
    ["K1 whole seconds", "User-agent: public-records-check\nCrawl-delay: 30\n", 30],
    ["K2 a decimal", "User-agent: *\nCrawl-delay: 2.5\n", 2.5],
    [
      "K3 the max over our merged groups",
      "User-agent: public-records-check\nCrawl-delay: 5\n\nUser-agent: public-records-check\nCrawl-delay: 12\nCrawl-delay: 3\n",
      12,
    ],
    [
      "K4 a * group's delay does not apply when we have our own group",
      "User-agent: *\nDisallow: /y\nCrawl-delay: 60\n\nUser-agent: public-records-check\nDisallow: /x\n",
      undefined,
    ],
    [
      "K4b a delay-only group runs on into the next user-agent lines (H8), so its delay is ours",
      "User-agent: *\nCrawl-delay: 60\n\nUser-agent: public-records-check\nDisallow: /x\n",
      60,
    ],
    [
      "K5 a delay before any user-agent is ignored",
      "Crawl-delay: 60\nUser-agent: *\nDisallow: /x\n",
      undefined,
    ],
    [
      "K6 a delay shared by a group's several agents applies to each",
      "User-agent: other\nUser-agent: public-records-check\nCrawl-delay: 9\n",
      9,
    ],
    [
      "K7 a bad value does not hide a good one",
      "User-agent: *\nCrawl-delay: soon\nCrawl-delay: 4\n",
      4,
    ],
  ];
  for (const [title, body, delay] of cases) {
    it(`P17 ${title}`, async () => {
      const r = await bothReadings(body, `${H}/k`);
      expect({ cli: r.cli.crawlDelaySeconds, night: r.night.crawlDelaySeconds }).toEqual({
        cli: delay,
        night: delay,
      });
    });
  }

  it("P17 K8: bad values are ignored", () => {
    for (const bad of ["", "-1", "10s", "0x10", "1e3", "abc", "1.2.3", "Infinity", "NaN", " "]) {
      expect(parseCrawlDelay(bad), bad).toBeUndefined();
    }
    expect(parseCrawlDelay("0")).toBe(0);
    expect(parseCrawlDelay(".5")).toBe(0.5);
    expect(parseCrawlDelay("7.")).toBe(7);
    expect(parseCrawlDelay("9".repeat(400))).toBeUndefined();
  });
});
