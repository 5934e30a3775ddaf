import { DEFAULT_USER_AGENT } from "./constants.js";

/**
 * The contact a User-Agent carries (P1): `mailto:…` or `https://…`, as it is written between
 * `(+` and `)`; undefined when it carries none.
 */
export function contactOf(userAgent: string): string | undefined {
  return /\(\+(mailto:[^()\s]+|https:\/\/[^()\s]+)\)/.exec(userAgent)?.[1];
}

/**
 * Whether a User-Agent sends site owners to the built-in operator: the built-in contact, whatever
 * the version or the rest of the string. Only such a one is shown with the built-in operator's
 * name and address on the site-owner page.
 */
export function hasBuiltInContact(userAgent: string): boolean {
  return contactOf(userAgent) === contactOf(DEFAULT_USER_AGENT);
}
