import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { validateUserAgent } from "../../src/net/user-agent.js";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";

const P = "public-records-check/0.1 (+mailto:a@b.org)";

describe("the User-Agent grammar (P1)", () => {
  const accepted = [
    DEFAULT_USER_AGENT,
    P,
    "public-records-check/1 (+mailto:records.desk@county.oh.us)",
    "public-records-check/2.10.3 (+mailto:ops+nor@example.org)",
    "public-records-check/0.1 (+https://example.org)",
    "public-records-check/0.1 (+https://example.org/about/checker?lang=en#contact)",
    "public-records-check/0.1 (+https://records.example.org:8443/contact)",
  ];
  it.each(accepted)("P1: %j is accepted as it is", (ua) => {
    expect(validateUserAgent(ua)).toBe(ua);
  });

  it("P1: no setting means the built-in User-Agent", () => {
    expect(validateUserAgent(undefined)).toBe(DEFAULT_USER_AGENT);
  });

  const refused = [
    // Other products after ours (the measured cases).
    `${P} AhrefsBot/7.0`,
    `${P} Applebot/0.1`,
    `${P} Chrome`,
    `${P} Safari`,
    "Bytespider",
    "public-records-check/0.1 (+mailto:a@b.org; Bytespider)",
    "public-records-check/0.1 (+mailto:a@b.org) (compatible; Googlebot/2.1)",
    "Mozilla/5.0 (compatible; public-records-check/0.1; +mailto:a@b.org)",
    "Mozilla/5.0",
    "curl/8.5.0",
    // Not our token, or not exactly it.
    "records-bot/1.0 (+mailto:a@b.org)",
    "Public-Records-Check/0.1 (+mailto:a@b.org)",
    "public-records-checker/0.1 (+mailto:a@b.org)",
    // The version: numbers and dots only.
    "public-records-check (+mailto:a@b.org)",
    "public-records-check/ (+mailto:a@b.org)",
    "public-records-check/Chrome (+mailto:a@b.org)",
    "public-records-check/0.1-Safari (+mailto:a@b.org)",
    "public-records-check/0.1.",
    // The contact: mailto: or https:, and nothing else in the comment.
    "public-records-check/0.1",
    "public-records-check/0.1 ()",
    "public-records-check/0.1 (+)",
    "public-records-check/0.1 (mailto:a@b.org)",
    "public-records-check/0.1 (+a@b.org)",
    "public-records-check/0.1 (+mailto:a@b)",
    "public-records-check/0.1 (+mailto:a b@b.org)",
    "public-records-check/0.1 (+mailto:@b.org)",
    "public-records-check/0.1 (+http://example.org)",
    "public-records-check/0.1 (+ftp://example.org)",
    "public-records-check/0.1 (+https://)",
    "public-records-check/0.1 (+https://localhost)",
    "public-records-check/0.1 (+https://user:pw@example.org)",
    "public-records-check/0.1 (+https://example.org/(Chrome))",
    "public-records-check/0.1 (+https://example.org) ",
    " public-records-check/0.1 (+https://example.org)",
    "public-records-check/0.1  (+https://example.org)",
    "public-records-check/0.1\t(+https://example.org)",
    "public-records-check/0.1 (+mailto:a@b.org)\r\nCookie: a=b",
    "",
    `public-records-check/0.1 (+https://example.org/${"a".repeat(300)})`,
  ];
  it.each(refused)("P1: %j is refused", (ua) => {
    expect(() => validateUserAgent(ua)).toThrow(ConfigError);
  });

  it("P1: the error shows the expected form and an example", () => {
    expect(() => validateUserAgent(`${P} AhrefsBot/7.0`)).toThrow(
      `must be exactly public-records-check/<version> (+mailto:<address>) or public-records-check/<version> (+https://<page>), with nothing before or after, for example "${DEFAULT_USER_AGENT}"`,
    );
  });

  // P1: the contact is the operator's, never a browser's or another product's name (an outside
  // tester: the grammar alone let these through).
  const named: [string, string][] = [
    ["public-records-check/0.1 (+https://googlebot.com/Chrome/120.0)", "googlebot"],
    ["public-records-check/0.1 (+mailto:googlebot@google.com)", "googlebot"],
    ["public-records-check/0.1 (+https://example.org/Mozilla)", "Mozilla"],
    ["public-records-check/0.1 (+https://example.org/chrome)", "chrome"],
    ["public-records-check/0.1 (+mailto:Safari@example.org)", "Safari"],
    ["public-records-check/0.1 (+https://example.org/AppleWebKit/537.36)", "AppleWebKit"],
    ["public-records-check/0.1 (+https://gecko.example.org)", "gecko"],
    ["public-records-check/0.1 (+https://example.org/firefox-fans)", "firefox"],
    ["public-records-check/0.1 (+https://example.org/Edg/120)", "Edg"],
    ["public-records-check/0.1 (+mailto:edge@example.org)", "edge"],
    ["public-records-check/0.1 (+https://example.org/OPR)", "OPR"],
    ["public-records-check/0.1 (+https://opera.example.org)", "opera"],
    ["public-records-check/0.1 (+https://example.org/MSIE)", "MSIE"],
    ["public-records-check/0.1 (+https://example.org/Trident/7.0)", "Trident"],
    ["public-records-check/0.1 (+mailto:ops@bingbot.example.org)", "bingbot"],
    ["public-records-check/0.1 (+https://example.org/slurp)", "slurp"],
    ["public-records-check/0.1 (+https://duckduckbot.example.org)", "duckduckbot"],
    ["public-records-check/0.1 (+https://example.org/Baiduspider)", "Baiduspider"],
    ["public-records-check/0.1 (+https://example.org/YandexBot)", "YandexBot"],
    ["public-records-check/0.1 (+https://example.org/facebookexternalhit)", "facebookexternalhit"],
    ["public-records-check/0.1 (+https://example.org/curl)", "curl"],
    ["public-records-check/0.1 (+mailto:wget@example.org)", "wget"],
    ["public-records-check/0.1 (+https://example.org/python-requests)", "python-requests"],
    ["public-records-check/0.1 (+https://scrapy.example.org)", "scrapy"],
    ["public-records-check/0.1 (+https://example.org/HeadlessChrome)", "HeadlessChrome"],
    ["public-records-check/0.1 (+mailto:it@curl.example.gov)", "curl"],
    ["public-records-check/0.1 (+https://example.org/x-Chrome/120.0)", "Chrome"],
    ["public-records-check/0.1 (+https://example.org/?via=Safari)", "Safari"],
  ];
  it.each(named)("P1: %j is refused, naming %j", (ua, word) => {
    expect(() => validateUserAgent(ua)).toThrow(ConfigError);
    expect(() => validateUserAgent(ua)).toThrow(`"${word}"`);
  });

  // Whole words, where a short product name is part of everyday words and names.
  const everyday = [
    "public-records-check/0.1 (+mailto:records@knowledge-edgewater.example.org)",
    "public-records-check/0.1 (+mailto:cooperative.operator@example.org)",
    "public-records-check/0.1 (+https://monochrome.example.org/curly-hedge)",
    "public-records-check/0.1 (+https://example.org/tridents/pledge)",
    // An operator's own address or page, where a short name is a surname or part of a name:
    // only a whole part of the contact (the address's name, a host's label, a path's segment)
    // or a product token (`Chrome/120`) names the product.
    "public-records-check/0.1 (+mailto:john.curl@cityofx.example.gov)",
    "public-records-check/0.1 (+mailto:m.edge@county.example.gov)",
    "public-records-check/0.1 (+https://opera-house.example.org)",
    "public-records-check/0.1 (+https://example.gov/chrome-plating-permits)",
  ];
  it.each(everyday)("P1: %j is accepted (no product named in it)", (ua) => {
    expect(validateUserAgent(ua)).toBe(ua);
  });
});
