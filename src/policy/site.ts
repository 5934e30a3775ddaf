/**
 * P9: a *site* is the registrable domain (public suffix + one label, ICANN section of the
 * Public Suffix List only), so every *.ohio.gov agency shares one lane and every government
 * on go.boarddocs.com or *.legistar.com shares its vendor's lane. Private-section suffixes
 * are deliberately ignored: treating github.io as one site is the cautious side.
 */

import { isIP } from "node:net";
import { domainToUnicode } from "node:url";
import type * as Tldts from "tldts";
import { requireCjs } from "../cjs.js";
import { NorError } from "../errors.js";
import { keptAnswers } from "./kept-answers.js";
import { mappedIpv4 } from "./mapped-ipv4.js";

const { getDomain, parse: parseHost } = requireCjs("tldts") as typeof Tldts;

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
  return sitesKept(url);
}

/**
 * URLs' sites lately found: a request asks siteOf of its URL at several of the fetcher's steps
 * (its check, its site's gate, its cookies, its transport), each a URL parse and a Public
 * Suffix List look-up. Bounded in count and in the URLs' characters (emptied when either is
 * full, so long URLs, 2,048 characters a request's and longer from the log, keep no more): a few
 * hundred kB at most beside a night's plan of 20,000 sources (docs/benchmarks.md "A night's
 * memory"). A URL that names no site throws, and is not kept.
 */
const sitesKept = keptAnswers(siteOfUrl, {
  max: 4_096,
  weight: (url) => url.length,
  maxWeight: 256 * 1024,
});

function siteOfUrl(url: string): string {
  const host = hostOf(url);
  // An IPv4-mapped IPv6 literal is the IPv4 host's site (mapped-ipv4.ts).
  if (host.startsWith("[")) return mappedIpv4(host) ?? host;
  if (isIP(host) !== 0) return host;
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}

/** The WHATWG origin (scheme://host[:port], default port omitted) of a URL. */
export function originOf(url: string): string {
  return parse(url).origin;
}

/**
 * Why a host (as `new URL(…).hostname` gives it, lower-case, without its trailing dot) names
 * no site, or undefined when it names one. The URL parser keeps hosts that DNS would never
 * resolve (`nosuch..gov`, `-x.gov`) and siteOf() takes them as their own site, so what a
 * person types is checked here first: the name's form by tldts (the Public Suffix List's own
 * library, which siteOf uses), and a bare public suffix (`gov`, `oh.us`), which is shared by
 * every site under it and so is none of them. An IP literal, localhost and a one-label
 * intranet name are sites.
 */
export function hostProblem(host: string): string | undefined {
  if (host.startsWith("[") || isIP(host) !== 0) return undefined;
  const labels = host.split(".");
  if (labels.includes("")) return "has an empty label (two dots in a row, or a dot at the start)";
  if (labels.some((l) => l.length > 63)) return "has a label longer than 63 characters";
  if (host.length > 253) return "is longer than 253 characters";
  if (labels.some((l) => l.startsWith("-") || l.endsWith("-")))
    return "has a label that starts or ends with a hyphen";
  const parsed = parseHost(host, { allowPrivateDomains: false });
  if (parsed.hostname === null) return "is not a valid host name";
  if (parsed.isIcann === true && parsed.domain === null)
    return `is a public suffix, shared by every site under it, not one site (name one, e.g. example.${host})`;
  return undefined;
}

/** A site a person named, or why what they typed names none (said to them as it is). */
export type SiteInput = { ok: true; site: string } | { ok: false; reason: string };

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The site an operator means by what they typed: a host, a registrable domain or a URL (the
 * owner's e-mail may name any of them), or why it names none. An IPv4 address names a site only
 * as the checker stores it (siteOf: four decimal numbers without leading zeros), so the rows
 * shown are those of the address typed (see leadingZeroProblem).
 */
export function readSite(text: string): SiteInput {
  const t = text.trim();
  if (t === "") return { ok: false, reason: "it is empty" };
  if (/\s/.test(t)) return { ok: false, reason: "it contains a space" };
  const url = SCHEME.test(t) ? t : `https://${t}/`;
  const typed = typedHost(t);
  const zero = leadingZeroProblem(typed);
  if (zero !== undefined) return { ok: false, reason: zero };
  let host: string;
  try {
    host = hostOf(url);
  } catch {
    return { ok: false, reason: siteInputProblem(t) ?? "no host name can be read from it" };
  }
  if (isIP(host) === 4 && typed !== host)
    return {
      ok: false,
      reason: `${typed} is not an IPv4 address as the checker writes it: URLs read it as ${host} (a shortened, hexadecimal or encoded form); type ${host} if that is the site`,
    };
  if (isIP(host) === 0 && !host.startsWith("[") && !sameName(typed, host))
    return {
      ok: false,
      reason: `${typed} is not a host name as the checker writes it: URLs read it as ${host} (they map full-width and other look-alike characters, and decode %-escapes); type ${host} if that is the site`,
    };
  const problem = hostProblem(host);
  if (problem !== undefined) return { ok: false, reason: `${host} ${problem}` };
  return { ok: true, site: siteOf(url) };
}

/**
 * Whether a typed host name (lower-case, without its trailing dot) is the name the URL parser
 * made of it: label by label, as the parser writes it (`xn--caf-dma`) or as that reads in
 * Unicode (`café`, in its composed form). A name the parser maps to another (full-width
 * `ｋｅｎｔ.gov` is kent.gov; `ke%6Et.gov`, a soft hyphen) is not: the address used would not
 * be the one written.
 */
function sameName(typed: string, host: string): boolean {
  if (typed === host) return true;
  const written = typed.split(".");
  const read = host.split(".");
  return (
    written.length === read.length &&
    written.every(
      (label, i) => label === read[i] || label.normalize("NFC") === domainToUnicode(read[i] ?? ""),
    )
  );
}

/**
 * The host as it was typed, before the URL parser reads it: after `scheme://`, up to the path,
 * query or fragment, without user-info, port or a trailing dot, lower-case. Compared only with
 * what the parser made of it, so a spelling this misreads is refused, never taken for another.
 */
function typedHost(t: string): string {
  const authority = t.replace(SCHEME, "").split(/[/?#\\]/, 1)[0] ?? "";
  return authority
    .slice(authority.lastIndexOf("@") + 1)
    .replace(/:[0-9]*$/, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

/**
 * Why a typed host of numbers only, which the URL parser takes for an IPv4 address, is
 * ambiguous: a part with a leading zero (`127.0.0.054`) is octal to the URL parser (44) and to
 * inet_aton, but decimal (54) to a person and to many tools, so it could name either site.
 */
function leadingZeroProblem(typed: string): string | undefined {
  const parts = typed.split(".");
  if (!parts.every((p) => /^(?:[0-9]+|0x[0-9a-f]*)$/.test(p))) return undefined;
  const zeroed = parts.find((p) => /^0[0-9]+$/.test(p));
  if (zeroed === undefined) return undefined;
  let octal: string | undefined;
  try {
    octal = hostOf(`https://${typed}/`);
  } catch {
    octal = undefined; // an 8 or a 9 after the zero: no octal number, the URL parser refuses it
  }
  const decimal =
    parts.length === 4 && parts.every((p) => /^[0-9]+$/.test(p) && Number(p) <= 255)
      ? parts.map(Number).join(".")
      : undefined;
  // Both readings the same address (`10.0.0.01`): not ambiguous, only not written as the checker
  // writes it, which the caller says with the address it is.
  if (octal !== undefined && octal === decimal) return undefined;
  const readings = [
    `the URL parser reads it as octal${octal === undefined ? "" : ` (${octal})`}`,
    `a person usually means decimal${decimal === undefined ? "" : ` (${decimal})`}`,
  ];
  return `${typed} is an IPv4 address with a part written with a leading zero (${zeroed}), which is ambiguous: ${readings.join(", ")}; type it without leading zeros, as the checker writes it`;
}

/** The site an operator means (see readSite); undefined when it names none. */
export function siteFromInput(text: string): string | undefined {
  const r = readSite(text);
  return r.ok ? r.site : undefined;
}

/**
 * What a person typed for a site that no URL can be made of, said for what it is rather than
 * as "no host name can be read from it": a port no URL may have (more than 65535, as the
 * catalog says it), or an IPv6 address written without the brackets a URL puts it in;
 * undefined for anything else (readSite's own reason holds).
 */
export function siteInputProblem(text: string): string | undefined {
  const t = text.trim();
  const rest = t.replace(SCHEME, "");
  const authority = rest.split(/[/?#\\]/, 1)[0] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (isIP(host) === 6 || (!SCHEME.test(t) && isIP(rest) === 6))
    return `an IPv6 address is written in brackets: type ${bracketed(isIP(host) === 6 ? host : rest)}`;
  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/.exec(host)?.[1];
  if (port === undefined || port === "") return undefined;
  if (!/^[0-9]+$/.test(port)) return `its port "${port}" is not a number`;
  return Number(port) > 65535
    ? `its port ${port} is impossible: more than 65535, the largest there is`
    : undefined;
}

/** The address as a URL writes it: in brackets, lower-case and compressed where it can be. */
function bracketed(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname;
  } catch {
    return `[${address}]`; // a zone (fe80::1%eth0), which URLs do not take
  }
}
