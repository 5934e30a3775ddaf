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
});
