import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import {
  decodeRobotsBody,
  isAllowed,
  normalisePath,
  normalisePattern,
  parseRobots,
  patternMatches,
  policyFor,
} from "../../src/policy/robots/index.js";
import { nightReading } from "./robots-paths.js";

const UA = DEFAULT_USER_AGENT;
const RUNS = { numRuns: 300 };

/** Bits that make robots.txt-looking text, including the tricky ones. */
const piece = fc.constantFrom(
  "User-agent: ",
  "user agent:",
  "Disallow: ",
  "disalow:",
  "Allow: ",
  "Crawl-delay: ",
  "Sitemap: ",
  "public-records-check",
  "*",
  "$",
  "/",
  "/a",
  "b",
  "%",
  "%2F",
  "%7e",
  "#",
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "ツ",
  "\uFEFF",
  "10",
  ":",
);
const robotsText = fc.array(piece, { maxLength: 80 }).map((a) => a.join(""));
const pathChar = fc.constantFrom("/", "a", "b", "?", "=", "%", "2", "F", "*", "$", "ü", " ");
const path = fc.array(pathChar, { maxLength: 20 }).map((a) => `/${a.join("")}`);
const patChar = fc.constantFrom("/", "a", "b", "*", "$");
const pattern = fc.array(patChar, { minLength: 1, maxLength: 8 }).map((a) => `/${a.join("")}`);

describe("robots.txt never breaks on hostile input (P17, RFC 9309 §3)", () => {
  it("P17: random bytes never throw", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), path, (bytes, p) => {
        const parsed = parseRobots(bytes);
        isAllowed(policyFor(parsed, UA), p);
      }),
      RUNS,
    );
  });

  it("P17: random robots-like text and random strings never throw", () => {
    fc.assert(
      fc.property(robotsText, fc.string({ unit: "binary", maxLength: 200 }), path, (t, s, p) => {
        isAllowed(policyFor(parseRobots(t), UA), p);
        isAllowed(policyFor(parseRobots(s), s), s);
      }),
      RUNS,
    );
  });

  /**
   * Hostile sizes and shapes. What they prove is that parsing and matching stay linear: a
   * quadratic parser or a backtracking matcher would not finish them at all within the test's
   * time-out, while these finish in milliseconds. The timings themselves are measured in
   * bench/bounds.ts (never asserted here: the machine is shared).
   */
  it("P17: 2 MB files of several shapes each parse, and give a verdict", () => {
    const two = 2 * 1024 * 1024;
    const shapes: [string, string][] = [
      ["many rules", "User-agent: *\nDisallow: /a*b$\nAllow: /c\n".repeat(two / 36)],
      ["one long line", `Disallow: /${"a".repeat(two)}`],
      ["blanks with a key at the end", `User-agent: *${" ".repeat(two)}Disallow: /`],
      ["a key, then blanks with no colon", `User-agent: * allow${" ".repeat(two)}x`],
      ["many keys without colons", "allow disallow ".repeat(two / 15)],
      ["a one-line file of many records", "User-agent: * Disallow: /x ".repeat(two / 27)],
      ["only line breaks", "\r\n\r".repeat(two / 3)],
      ["%-escapes and non-ASCII", `User-agent: *\nDisallow: /${"%e3ツ%".repeat(two / 8)}\n`],
    ];
    for (const [name, text] of shapes) {
      const policy = policyFor(parseRobots(new TextEncoder().encode(text)), UA);
      expect(typeof isAllowed(policy, "/x/y"), name).toBe("boolean");
    }
    const [, many] = shapes[0]!;
    const policy = policyFor(parseRobots(new TextEncoder().encode(many)), UA);
    expect([isAllowed(policy, "/x/y"), isAllowed(policy, "/a1b"), isAllowed(policy, "/c")]).toEqual(
      [true, false, true],
    );
  });

  it("P17: pathological wildcards against a 100 KB path are decided", () => {
    const p = `/${"a".repeat(100_000)}b`;
    const pats = ["/*a*a*a*a*a*a*a*a*a*a*$", "/*a*a*a*a*a*a*a*a*a*a$", "/*a*a*a*a*a*a*a*a*a*ab*c"];
    expect(pats.map((pat) => patternMatches(pat, p))).toEqual([true, false, false]);
    const body = `User-agent: *\n${pats.map((x) => `Disallow: ${x}`).join("\n")}\nAllow: /*b$`;
    expect(isAllowed(policyFor(parseRobots(body), UA), p)).toBe(false);
  });

  it("P17: a 100 KB pattern of stars and letters against a long path is decided", () => {
    // 50,000 a's asked of a path holding 20,000: no match, found without backtracking.
    const pat = `/${"*a".repeat(50_000)}$`;
    expect(patternMatches(pat, `/${"ab".repeat(20_000)}`)).toBe(false);
    expect(patternMatches(pat, `/${"ab".repeat(50_000)}`)).toBe(false);
    expect(patternMatches(pat, `/${"ba".repeat(50_000)}`)).toBe(true);
  });
});

describe("robots.txt invariants (P17, P18)", () => {
  it("P17: a file with only Allow rules allows everything", () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 10 }), path, (pats, p) => {
        const body = `User-agent: *\n${pats.map((x) => `Allow: ${x}`).join("\n")}`;
        expect(isAllowed(policyFor(parseRobots(body), UA), p)).toBe(true);
      }),
      RUNS,
    );
  });

  it("P18: adding `Disallow: /` to our group with no Allow disallows every path but /robots.txt", () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 10 }), path, (pats, p) => {
        const body = `User-agent: public-records-check\n${pats.map((x) => `Disallow: ${x}`).join("\n")}\nDisallow: /\n`;
        const policy = policyFor(parseRobots(body), UA);
        expect(isAllowed(policy, p)).toBe(p === "/robots.txt");
        expect(isAllowed(policy, "/robots.txt")).toBe(true);
      }),
      RUNS,
    );
  });

  it("P17: patternMatches agrees with a regular-expression reference", () => {
    const reference = (pat: string, p: string) => {
      const anchored = pat.endsWith("$");
      const body = anchored ? pat.slice(0, -1) : pat;
      const src = body
        .split("*")
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*");
      return new RegExp(`^${src}${anchored ? "$" : ""}`, "s").test(p);
    };
    const small = fc.array(fc.constantFrom("/", "a", "b", "$"), { maxLength: 10 });
    fc.assert(
      fc.property(pattern, small, (pat, chars) => {
        const p = `/${chars.join("")}`;
        expect(patternMatches(pat, p)).toBe(reference(pat, p));
      }),
      { numRuns: 2000 },
    );
  });

  it("P17: the longest matching pattern decides and Allow wins ties (brute-force reference)", () => {
    const rule = fc.record({ allow: fc.boolean(), pattern });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), path, (rules, p) => {
        const body = `User-agent: *\n${rules.map((r) => `${r.allow ? "Allow" : "Disallow"}: ${r.pattern}`).join("\n")}`;
        const np = normalisePath(p);
        let best = -1;
        let verdict = true;
        for (const r of rules) {
          const pat = normalisePattern(r.pattern);
          if (!patternMatches(pat, np)) continue;
          if (pat.length > best || (pat.length === best && r.allow)) verdict = r.allow;
          best = Math.max(best, pat.length);
        }
        const expected = np === "/robots.txt" || verdict;
        expect(isAllowed(policyFor(parseRobots(body), UA), p)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("P17: the order of rules in a group does not change any verdict", () => {
    const line = fc
      .tuple(fc.boolean(), pattern)
      .map(([a, x]) => `${a ? "Allow" : "Disallow"}: ${x}`);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), path, (lines, p) => {
        const a = policyFor(parseRobots(`User-agent: *\n${lines.join("\n")}`), UA);
        const b = policyFor(parseRobots(`User-agent: *\n${[...lines].reverse().join("\n")}`), UA);
        expect(isAllowed(a, p)).toBe(isAllowed(b, p));
      }),
      RUNS,
    );
  });

  it("P17: blank lines anywhere in a file change no verdict", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            "User-agent: *",
            "User-agent: public-records-check",
            "User-agent: x",
            "Disallow: /a",
            "Allow: /a/b",
            "Disallow: /*b$",
          ),
          { maxLength: 10 },
        ),
        path,
        (lines, p) => {
          const tight = policyFor(parseRobots(lines.join("\n")), UA);
          const loose = policyFor(parseRobots(lines.join("\n\n\r\n")), UA);
          expect(isAllowed(loose, p)).toBe(isAllowed(tight, p));
        },
      ),
      RUNS,
    );
  });

  it("P17: normalisation is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        const p = normalisePath(s);
        expect(normalisePath(p)).toBe(p);
        const q = normalisePattern(s);
        expect(normalisePattern(q)).toBe(q);
      }),
      { numRuns: 1000 },
    );
  });

  it("P17: the one decode loses no byte: each byte that is not UTF-8 is its %XX escape", () => {
    // Bytes without `%` and not starting with a BOM, so the text maps back unambiguously.
    const file = fc
      .uint8Array({ maxLength: 300 })
      .map((b) => Uint8Array.from([0x41, ...b.map((x) => (x === 0x25 ? 0x26 : x))]));
    const enc = new TextEncoder();
    fc.assert(
      fc.property(file, (bytes) => {
        const text = decodeRobotsBody(bytes).text;
        const back = text
          .split(/(%[0-9A-F]{2})/)
          .flatMap((part) =>
            /^%[0-9A-F]{2}$/.test(part)
              ? [Number.parseInt(part.slice(1), 16)]
              : [...enc.encode(part)],
          );
        expect(Uint8Array.from(back)).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it("P18: the night's cached text and a direct read of the same bytes give the same verdict", () => {
    const odd = fc.constantFrom(
      [0xe9],
      [0xff],
      [0xc3],
      [0xc3, 0xa9],
      [0xef, 0xbb, 0xbf],
      [0xed, 0xa0, 0x80],
      [0x0b],
      [0x0c],
    );
    const part = fc.oneof(
      piece.map((p) => [...new TextEncoder().encode(p)]),
      odd,
      fc.constantFrom([0x27], [0x2a, 0x62, 0x6f, 0x74]),
    );
    const file = fc.array(part, { maxLength: 80 }).map((a) => Uint8Array.from(a.flat()));
    const url = fc.constantFrom(
      "/",
      "/a",
      "/a/b",
      "/caf%E9",
      "/b?q='x'",
      "/%EF%BB%BF",
      "/robots.txt",
    );
    fc.assert(
      fc.property(file, url, (bytes, p) => {
        const direct = isAllowed(policyFor(parseRobots(bytes), UA), p) ? "allowed" : "disallowed";
        expect(nightReading(bytes, `http://h.test${p}`).verdict).toBe(direct);
      }),
      { numRuns: 1000 },
    );
  });
});
