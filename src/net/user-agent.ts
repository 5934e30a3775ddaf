import { ConfigError } from "../errors.js";
import { DEFAULT_USER_AGENT, PRODUCT_TOKEN } from "../policy/constants.js";

/**
 * P1: the User-Agent is configurable only so the operator can put their own contact in it.
 * It must start with our product token (the name site owners write robots.txt rules for),
 * and must never carry a browser's or another crawler's name, so it cannot be used to get
 * past a rule.
 */
const FOREIGN_TOKENS = [
  "mozilla/",
  "chrome/",
  "chromium/",
  "safari/",
  "applewebkit",
  "gecko/",
  "firefox/",
  "edg/",
  "edge/",
  "opr/",
  "opera",
  "msie",
  "trident/",
  "headless",
  "googlebot",
  "bingbot",
  "slurp",
  "duckduckbot",
  "baiduspider",
  "yandex",
  "facebookexternalhit",
  "gptbot",
  "ccbot",
  "claudebot",
  "curl/",
  "wget/",
  "python-requests",
  "okhttp",
];

export function validateUserAgent(ua: string | undefined): string {
  const value = ua ?? DEFAULT_USER_AGENT;
  if (/[\r\n\0]/.test(value) || value.length > 256) {
    throw new ConfigError(
      `user agent ${JSON.stringify(value)}: one line of at most 256 characters`,
    );
  }
  // RFC 9110 §10.1.5: product = token ["/" product-version]; ours must come first.
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)?(\s|$)/.exec(value);
  if (!m || m[1]!.toLowerCase() !== PRODUCT_TOKEN) {
    throw new ConfigError(
      `user agent ${JSON.stringify(value)} must start with the product token ${PRODUCT_TOKEN} (P1)`,
    );
  }
  const lower = value.toLowerCase();
  const foreign = FOREIGN_TOKENS.find((t) => lower.includes(t));
  if (foreign) {
    throw new ConfigError(
      `user agent ${JSON.stringify(value)} names another product (${foreign}); P1 forbids it`,
    );
  }
  return value;
}
