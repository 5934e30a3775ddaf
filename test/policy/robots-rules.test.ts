import { describe, expect, it } from "vitest";
import { PRODUCT_TOKEN } from "../../src/policy/constants.js";
import { parseRobots } from "../../src/policy/robots/index.js";
import { allowedOnBothPaths } from "./robots-paths.js";

interface Row {
  id: string;
  title: string;
  body: string | Uint8Array;
  url: string;
  allowed: boolean;
  agent?: string;
}

const H = "http://h.test";
const bytes = (...parts: (number[] | string)[]) =>
  Uint8Array.from(
    parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)),
  );

// biome-ignore format: one row per rule reads as a table
const rows: Row[] = [
  // Line syntax, RFC 9309 §2.2 (P17).
  { id: "S1", title: "keys are case-insensitive", body: "USER-AGENT: *\nDISALLOW: /x", url: `${H}/x`, allowed: false },
  { id: "S2", title: "blanks before the key, around the colon and at the end", body: "  User-agent  :  *  \n\tDisallow\t:\t/x\t  ", url: `${H}/xy`, allowed: false },
  { id: "S3", title: "a comment after a value is not part of it", body: "User-agent: *\nDisallow: /x # not /y\n", url: `${H}/x/1`, allowed: false },
  { id: "S3b", title: "a comment after a value is not part of it (other path)", body: "User-agent: *\nDisallow: /x # not /y\n", url: `${H}/y`, allowed: true },
  { id: "S4", title: "a comment line inside a group does not end it", body: "User-agent: *\n# note\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "S5", title: "CR line ends", body: "User-agent: *\rDisallow: /x\rAllow: /x/ok\r", url: `${H}/x/no`, allowed: false },
  { id: "S5b", title: "CR line ends keep lines apart", body: "User-agent: *\rDisallow: /x\rAllow: /x/ok\r", url: `${H}/x/ok`, allowed: true },
  { id: "S6", title: "CRLF line ends", body: "User-agent: *\r\nDisallow: /x\r\nAllow: /x/ok\r\n", url: `${H}/x/ok`, allowed: true },
  { id: "S6b", title: "CRLF line ends (disallowed path)", body: "User-agent: *\r\nDisallow: /x\r\n", url: `${H}/x`, allowed: false },
  { id: "S7", title: "mixed line ends in one file", body: "User-agent: a\r\nDisallow: /\rUser-agent: *\nDisallow: /x\r\n", url: `${H}/x`, allowed: false },
  { id: "S8", title: "unknown records are ignored, not read as rules", body: "User-agent: *\nNoindex: /x\nFoo: bar\nDisallow: /y", url: `${H}/x`, allowed: true },
  { id: "S8b", title: "unknown records do not hide later rules", body: "User-agent: *\nNoindex: /x\nFoo: bar\nDisallow: /y", url: `${H}/y`, allowed: false },
  { id: "S9", title: "a garbage line does not invalidate the rest", body: "User-agent: *\nthis is not : : a rule at all ::\n<html>\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "S10", title: "rules before the first user-agent line are ignored", body: "Disallow: /\nUser-agent: *\nDisallow: /x", url: `${H}/y`, allowed: true },
  { id: "S11", title: "an empty Disallow matches nothing", body: "User-agent: *\nDisallow:", url: `${H}/anything`, allowed: true },
  { id: "S12", title: "an empty Disallow does not clear the group's other rules", body: "User-agent: *\nDisallow: /x\nDisallow:\n", url: `${H}/x`, allowed: false },
  { id: "S13", title: "a forgotten colon between exactly two words is read (as Google does)", body: "User-agent *\nDisallow /x", url: `${H}/x`, allowed: false },
  { id: "S14", title: "keys are exact: no prefix matching (`Disallowed:`)", body: "User-agent: *\nDisallowed: /x", url: `${H}/x`, allowed: true },
  { id: "S15", title: "keys are exact: `User-agents:` opens no group", body: "User-agents: *\nDisallow: /x", url: `${H}/x`, allowed: true },
  { id: "S16", title: "a UTF-8 BOM at byte 0 is skipped", body: bytes([0xef, 0xbb, 0xbf], "User-agent: *\nDisallow: /x"), url: `${H}/x`, allowed: false },
  { id: "S17", title: "a partial BOM EF at byte 0 is skipped", body: bytes([0xef], "User-agent: *\nDisallow: /x"), url: `${H}/x`, allowed: false },
  { id: "S18", title: "a partial BOM EF BB at byte 0 is skipped", body: bytes([0xef, 0xbb], "User-agent: *\nDisallow: /x"), url: `${H}/x`, allowed: false },
  { id: "S19", title: "a BOM written as U+FEFF and saved as UTF-8 is skipped too", body: "\uFEFFUser-agent: *\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "S20", title: "invalid UTF-8 on one line does not spoil the others", body: bytes("User-agent: *\nAllow: /\xff\n", [0xc3, 0x28, 0xff, 0x0a], "Disallow: /x\n"), url: `${H}/x`, allowed: false },
  { id: "S21", title: "RFC 9309 §2.2: a line without a colon splits on space and tab only, so `Disallow\\v/v` is no rule", body: "User-agent: *\nDisallow\v/v\nUser-agent: other\nDisallow: /x", url: `${H}/v`, allowed: true },
  { id: "S21b", title: "`Disallow\\v/v` does not end the group", body: "User-agent: *\nDisallow\v/v\nUser-agent: other\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "S21c", title: "`Disallow\\f/f` is no rule and does not end the group", body: "User-agent: *\nDisallow\f/f\nUser-agent: other\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "S21d", title: "a forgotten colon before a tab still reads (`Disallow\\t/x`)", body: "User-agent: *\nDisallow\t/x", url: `${H}/x`, allowed: false },
  { id: "S22", title: "a rule byte that is not UTF-8 (`/caf\\xE9`) matches the URL's %E9", body: bytes("User-agent: *\nDisallow: /caf", [0xe9], "\n"), url: `${H}/caf%E9`, allowed: false },
  { id: "S22b", title: "a rule byte that is not UTF-8 matches %e9 in lower case, as a prefix", body: bytes("User-agent: *\nDisallow: /caf", [0xe9], "\n"), url: `${H}/caf%e9/menu`, allowed: false },
  { id: "S22c", title: "a rule byte that is not UTF-8 is that octet, not the UTF-8 é (%C3%A9)", body: bytes("User-agent: *\nDisallow: /caf", [0xe9], "\n"), url: `${H}/café`, allowed: true },
  { id: "S22d", title: "a Latin-1 rule with a wildcard and an anchor after the odd byte", body: bytes("User-agent: *\nDisallow: /*", [0xe9], "t", [0xe9], "$\n"), url: `${H}/archives/%E9t%E9`, allowed: false },
  { id: "S23", title: "a second byte-order mark is content, not skipped (the first line names no key)", body: bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], "User-agent: *\nDisallow: /x"), url: `${H}/x`, allowed: true },

  // Misspellings Google's parser accepts (P20); exactly Google's set, nothing else.
  { id: "M1", title: "`useragent` is user-agent", body: "useragent: *\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "M2", title: "`user agent` is user-agent", body: "User agent: *\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "M3", title: "`dissallow` is disallow", body: "User-agent: *\ndissallow: /x", url: `${H}/x`, allowed: false },
  { id: "M4", title: "`dissalow` is disallow", body: "User-agent: *\nDissalow: /x", url: `${H}/x`, allowed: false },
  { id: "M5", title: "`disalow` is disallow", body: "User-agent: *\ndisalow: /x", url: `${H}/x`, allowed: false },
  { id: "M6", title: "`diasllow` is disallow", body: "User-agent: *\ndiasllow: /x", url: `${H}/x`, allowed: false },
  { id: "M7", title: "`disallaw` is disallow", body: "User-agent: *\nDISALLAW: /x", url: `${H}/x`, allowed: false },
  { id: "M8", title: "`user-agnet` is not in Google's set", body: "User-agnet: *\nDisallow: /x", url: `${H}/x`, allowed: true },
  { id: "M9", title: "`alow` is not in Google's set (Allow has no typos)", body: "User-agent: *\nDisallow: /x\nAlow: /x/y", url: `${H}/x/y`, allowed: false },
  { id: "M10", title: "`disalloww` is not a misspelling we read (no prefix matching)", body: "User-agent: *\ndisalloww: /x", url: `${H}/x`, allowed: true },
  { id: "M11", title: "misspelt keys also split a one-line record", body: "useragent: * disalow: /x", url: `${H}/x`, allowed: false },

  // Groups, RFC 9309 §2.1–2.2.1 (P16, P17).
  { id: "H1", title: "a blank line does not end a group", body: "User-agent: *\n\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H2", title: "blank lines between rules keep them in one group", body: "User-agent: *\nDisallow: /a\n\n\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H3", title: "consecutive user-agent lines form one group", body: "User-agent: other\nUser-agent: public-records-check\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H4", title: "blank lines between user-agent lines keep one group", body: "User-agent: other\n\nUser-agent: public-records-check\n\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H5", title: "a user-agent line after a rule starts a new group", body: "User-agent: public-records-check\nDisallow: /x\nUser-agent: other\nDisallow: /y", url: `${H}/y`, allowed: true },
  { id: "H6", title: "our group replaces * entirely", body: "User-agent: *\nDisallow: /\n\nUser-agent: public-records-check\nDisallow: /x", url: `${H}/y`, allowed: true },
  { id: "H7", title: "several groups naming us merge", body: "User-agent: public-records-check\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: public-records-check\nDisallow: /c", url: `${H}/c`, allowed: false },
  { id: "H7b", title: "several groups naming us merge, others stay out", body: "User-agent: public-records-check\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: public-records-check\nDisallow: /c", url: `${H}/b`, allowed: true },
  { id: "H8", title: "Crawl-delay between user-agent lines does not split a group", body: "User-agent: public-records-check\nCrawl-delay: 5\nUser-agent: other\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H9", title: "Sitemap between user-agent lines does not split a group", body: "User-agent: public-records-check\nSitemap: http://h.test/s.xml\nUser-agent: other\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H10", title: "an unknown record between user-agent lines does not split a group", body: "User-agent: public-records-check\nHost: h.test\nUser-agent: other\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H11", title: "our token is matched case-insensitively", body: "User-agent: PUBLIC-Records-Check\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H12", title: "a prefix of our token is not our token", body: "User-agent: public-records\nDisallow: /", url: `${H}/x`, allowed: true },
  { id: "H13", title: "a longer token containing ours is not ours", body: "User-agent: public-records-checker\nDisallow: /", url: `${H}/x`, allowed: true },
  { id: "H14", title: "a version after the token in robots.txt still names us", body: "User-agent: public-records-check/0.1\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H15", title: "our empty group allows all and does not fall back to *", body: "User-agent: *\nDisallow: /\n\nUser-agent: public-records-check\n", url: `${H}/x`, allowed: true },
  { id: "H16", title: "our group with only an empty Disallow allows all", body: "User-agent: public-records-check\nDisallow:\n\nUser-agent: *\nDisallow: /", url: `${H}/x`, allowed: true },
  { id: "H17", title: "no group for us and no * group: allowed", body: "User-agent: other\nDisallow: /", url: `${H}/x`, allowed: true },
  { id: "H18", title: "several * groups merge", body: "User-agent: *\nDisallow: /a\nUser-agent: b\nDisallow: /\nUser-agent: *\nDisallow: /c", url: `${H}/c`, allowed: false },
  { id: "H19", title: "`* bots` still counts as the * group", body: "User-agent: * bots\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H19b", title: "`*` then a tab and more still counts as the * group", body: "User-agent: *\tbots\nDisallow: /x", url: `${H}/x`, allowed: false },
  { id: "H19c", title: "P16: `*bot` names another agent: its `Allow: /` does not tie the * group's `Disallow: /`", body: "User-agent: *\nDisallow: /\n\nUser-agent: *bot\nAllow: /\n", url: `${H}/x`, allowed: false },
  { id: "H19d", title: "P16: `*/1.0` names another agent, not the * group", body: "User-agent: */1.0\nAllow: /\n\nUser-agent: *\nDisallow: /\n", url: `${H}/x`, allowed: false },
  { id: "H19e", title: "P16: a group for `*bot` alone is not ours, nor the * group", body: "User-agent: *bot\nDisallow: /x\n", url: `${H}/x`, allowed: true },
  { id: "H20", title: "the bare product token works as the agent too", body: "User-agent: public-records-check\nDisallow: /x", url: `${H}/x`, allowed: false, agent: PRODUCT_TOKEN },
  { id: "H21", title: "another agent gets the * group, not ours", body: "User-agent: public-records-check\nDisallow: /x\nUser-agent: *\nDisallow: /y", url: `${H}/x`, allowed: true, agent: "otherbot/2.0" },

  // One-line records (P17, research §1.9).
  { id: "C1", title: "`User-agent: * Disallow: /` on one line is two lines", body: "User-agent: * Disallow: /", url: `${H}/x`, allowed: false },
  { id: "C2", title: "our token and a rule on one line", body: "User-agent: public-records-check Disallow: /", url: `${H}/x`, allowed: false },
  { id: "C3", title: "three records on one line", body: "User-agent: * Disallow: /p Allow: /p/ok", url: `${H}/p/ok`, allowed: true },
  { id: "C3b", title: "three records on one line (disallowed part)", body: "User-agent: * Disallow: /p Allow: /p/ok", url: `${H}/p/no`, allowed: false },
  { id: "C4", title: "`User-agent: * # Disallow: /` stays a lone user-agent line", body: "User-agent: * # Disallow: /", url: `${H}/x`, allowed: true },
  { id: "C5", title: "odd spacing and case in a one-line record", body: "User-agent:*   disallow  :/x", url: `${H}/x`, allowed: false },
  { id: "C6", title: "a split never cuts a pattern: `Disallow: /a allow` keeps /a", body: "User-agent: *\nDisallow: /a allowance", url: `${H}/a`, allowed: true },
];

// Every row is read the way `nor robots check` reads a file and the way the night reads the
// same bytes (the gate caches them, the fetcher parses the cache): both must agree (P16–P18).
describe("robots.txt rules table, CLI and night (P16, P17, P18, P20)", () => {
  for (const r of rows) {
    const tag = r.id.startsWith("M") ? "P20" : r.id.startsWith("H") ? "P16/P17" : "P17";
    it(`${tag} ${r.id}: ${r.title} → ${r.allowed ? "allowed" : "disallowed"}`, async () => {
      const want = r.allowed;
      expect(await allowedOnBothPaths(r.body, r.url, r.agent)).toEqual({ cli: want, night: want });
    });
  }
});

describe("the parsed shape", () => {
  it("P17: sitemaps are collected from anywhere and never open a group", () => {
    const p = parseRobots(
      "Sitemap: http://h.test/a.xml\nUser-agent: *\nSite-map: /b.xml\nDisallow: /x",
    );
    expect(p.sitemaps).toEqual(["http://h.test/a.xml", "/b.xml"]);
    expect(p.groups).toEqual([{ agents: ["*"], rules: [{ allow: false, pattern: "/x" }] }]);
  });

  it("P16: agent values are reduced to their product token, in lower case", () => {
    const p = parseRobots(
      "User-agent: Foobot/2.1\nUser-agent: Foo Bar\nUser-agent: 123\nDisallow: /",
    );
    expect(p.groups[0]?.agents).toEqual(["foobot", "foo", ""]);
  });

  it("P17: patterns are stored normalised", () => {
    const p = parseRobots("User-agent: *\nDisallow: /%7efoo/ツ/%2f$x$");
    expect(p.groups[0]?.rules).toEqual([{ allow: false, pattern: "/~foo/%E3%83%84/%2F%24x$" }]);
  });

  it("P17: an empty file, or an HTML page served as robots.txt, has no rules", async () => {
    expect(parseRobots("")).toEqual({ groups: [], sitemaps: [] });
    const html = "<!doctype html><html><body><p>Not found: /robots.txt</p></body></html>";
    expect(await allowedOnBothPaths(html, `${H}/private`)).toEqual({ cli: true, night: true });
  });
});
