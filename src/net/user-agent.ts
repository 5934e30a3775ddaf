import { ConfigError } from "../errors.js";
import { DEFAULT_USER_AGENT, PRODUCT_TOKEN } from "../policy/constants.js";
import { productNamedIn } from "../policy/ua-contact.js";

/**
 * P1: the User-Agent is configurable only so the operator can put their own contact in it.
 * It is read against an allow-list grammar, not searched for bad names: exactly
 *
 *   public-records-check/<version> (+<contact>)
 *
 * where <version> is numbers separated by dots and <contact> is `mailto:<address>` or an
 * `https:` URL, and nothing else: no second product, no second comment (RFC 9110 §10.1.5
 * product and comment). So no setting can add a browser's or another crawler's name as a
 * product, and the product token site owners write robots.txt rules for comes first. Nor in the
 * contact: one that names a browser, its engine, another crawler or an HTTP client
 * (`+https://googlebot.com/Chrome/120.0`, `+mailto:googlebot@google.com`:
 * policy/ua-contact.ts productNamedIn) is refused, naming the word. Every User-Agent the
 * checker takes (`--user-agent`, NOR_USER_AGENT, for `nor night`, its workers, `nor start`,
 * `nor serve`, `nor discover`, and every fetcher's options) is read here.
 */
export const USER_AGENT_FORM = `${PRODUCT_TOKEN}/<version> (+mailto:<address>) or ${PRODUCT_TOKEN}/<version> (+https://<page>)`;

const MAX_LENGTH = 256;
const VERSION = /^\d{1,6}(?:\.\d{1,6}){0,3}$/;
// RFC 5322 §3.4.1 dot-atom local part and RFC 1035 host labels (at least two), without the
// quoted or bracketed forms; nothing a comment (RFC 9110 §5.6.5) cannot hold as it is.
const LOCAL = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*";
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const MAILTO = new RegExp(`^mailto:${LOCAL}@${LABEL}(?:\\.${LABEL})+$`);
/** RFC 3986 §2 unreserved, reserved and `%`, less `(` and `)`, which would end the comment. */
const URL_CHARS = /^https:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'*+,;=%]+$/;
const SHAPE = new RegExp(`^${PRODUCT_TOKEN}/([^ ]+) \\(\\+([^()\\\\ ]+)\\)$`);

function contactOk(contact: string): boolean {
  if (contact.startsWith("mailto:")) return MAILTO.test(contact);
  if (!URL_CHARS.test(contact)) return false;
  let url: URL;
  try {
    url = new URL(contact);
  } catch {
    return false;
  }
  return (
    url.protocol === "https:" &&
    url.hostname.includes(".") &&
    url.username === "" &&
    url.password === ""
  );
}

export function validateUserAgent(ua: string | undefined): string {
  const value = ua ?? DEFAULT_USER_AGENT;
  const shown = JSON.stringify(
    value.length > MAX_LENGTH ? `${value.slice(0, MAX_LENGTH)}…` : value,
  );
  if (value.length > MAX_LENGTH) {
    throw new ConfigError(`user agent ${shown}: at most ${MAX_LENGTH} characters (P1)`);
  }
  const m = SHAPE.exec(value);
  if (!m || !VERSION.test(m[1]!) || !contactOk(m[2]!)) {
    throw new ConfigError(
      `user agent ${shown} is refused (P1): it must be exactly ${USER_AGENT_FORM}, ` +
        `with nothing before or after, for example "${DEFAULT_USER_AGENT}"`,
    );
  }
  const product = productNamedIn(m[2]!);
  if (product !== undefined) {
    throw new ConfigError(
      `user agent ${shown} is refused (P1): its contact names ${JSON.stringify(product)}, a browser's or another product's name; the User-Agent is ${PRODUCT_TOKEN}'s alone, with the operator's own address or page as its contact (${USER_AGENT_FORM})`,
    );
  }
  return value;
}
