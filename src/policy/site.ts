/**
 * P9: a *site* is the registrable domain (public suffix + one label, ICANN section of the
 * Public Suffix List only), so every *.ohio.gov agency shares one lane and every government
 * on go.boarddocs.com or *.legistar.com shares its vendor's lane. Private-section suffixes
 * are deliberately ignored: treating github.io as one site is the cautious side.
 */
import { isIP } from "node:net";
import { getDomain } from "tldts";
import { NorError } from "../errors.js";

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch (cause) {
    throw new NorError("E_INTERNAL", `not a URL: ${JSON.stringify(url)}`, { cause });
  }
}

/** The host of a URL as WHATWG normalises it, without a trailing dot. */
function hostOf(url: string): string {
  const host = parse(url).hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") throw new NorError("E_INTERNAL", `URL has no host: ${JSON.stringify(url)}`);
  return host;
}

/**
 * The site (politeness lane) of a URL: the registrable domain, lower-case. An IP literal is
 * its own site (IPv6 as "[…]", already compressed by the URL parser); a host that has no
 * registrable domain (localhost, a bare public suffix) is its own site.
 */
export function siteOf(url: string): string {
  const host = hostOf(url);
  if (host.startsWith("[") || isIP(host) !== 0) return host;
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

/** The WHATWG origin (scheme://host[:port], default port omitted) of a URL. */
export function originOf(url: string): string {
  return parse(url).origin;
}

/**
 * The site an operator means by what they typed: a host, a registrable domain or a URL (the
 * owner's e-mail may name any of them). Undefined when it names no host.
 */
export function siteFromInput(text: string): string | undefined {
  const t = text.trim();
  if (t === "" || /\s/.test(t)) return undefined;
  try {
    return siteOf(/^[a-z][a-z0-9+.-]*:\/\//i.test(t) ? t : `https://${t}/`);
  } catch {
    return undefined;
  }
}
