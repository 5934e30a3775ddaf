/**
 * P22: the cookies a site sets live only for that source's check that night (one jar per
 * source per night, never saved) and go back only to the site (siteOf, P9) that set them,
 * never to another site even if a Domain attribute would allow it. Storage and matching
 * follow RFC 6265 §5.2–5.4 closely enough for real sites: Domain (no public suffixes),
 * host-only cookies, Path, Expires / Max-Age, Secure, and the __Secure- / __Host- prefixes
 * of RFC 6265bis. The jar never takes cookies from anywhere but a response (no borrowing).
 */
import { isIP } from "node:net";
import type * as Tldts from "tldts";
import { requireCjs } from "../cjs.js";
import type { Clock } from "../clock.js";
import { parseCookieDate } from "../policy/cookie-date.js";
import { siteOf } from "../policy/site.js";
import type { CookieJarPort } from "./types.js";

const { getPublicSuffix } = requireCjs("tldts") as typeof Tldts;

/** Bounds: one source's check needs a handful; a hostile site cannot grow the jar. */
export const MAX_COOKIES = 100;
export const MAX_COOKIE_BYTES = 4096;
const MAX_ATTRIBUTE_VALUE = 1024;

interface StoredCookie {
  name: string;
  value: string;
  /** Lower-case, no leading dot; the request host itself for a host-only cookie. */
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  /** ms since the epoch; undefined for a session cookie (lives as long as the jar). */
  expiresAt: number | undefined;
  /** Creation order, for §5.4's sort and for eviction. */
  seq: number;
  /** siteOf the URL that set it: it is sent to this site only. */
  site: string;
}

function httpUrl(url: string): URL | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined; // not a URL: nothing to store or send
  }
  return u.protocol === "http:" || u.protocol === "https:" ? u : undefined;
}

function hostOf(u: URL): string {
  return u.hostname.toLowerCase().replace(/\.$/, "");
}

/** §5.1.3 domain-match: identical, or a dot-separated suffix of a host name (not an IP). */
function domainMatch(host: string, domain: string): boolean {
  if (host === domain) return true;
  return host.endsWith(`.${domain}`) && !host.startsWith("[") && isIP(host) === 0;
}

/** §5.1.4 default-path: the request path up to (not including) its right-most "/". */
function defaultPath(u: URL): string {
  const p = u.pathname;
  if (!p.startsWith("/")) return "/";
  const last = p.lastIndexOf("/");
  return last <= 0 ? "/" : p.slice(0, last);
}

/** §5.1.4 path-match. */
function pathMatch(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}

export class SourceCookieJar implements CookieJarPort {
  readonly #clock: Pick<Clock, "now">;
  #cookies: StoredCookie[] = [];
  #seq = 0;

  constructor(clock: Pick<Clock, "now">) {
    this.#clock = clock;
  }

  /** Cookies currently held (expired ones excluded). */
  get size(): number {
    this.#evictExpired();
    return this.#cookies.length;
  }

  store(url: string, setCookies: string[]): void {
    const u = httpUrl(url);
    if (!u) return;
    // Headers joined with newlines (as some callers keep them) are separate Set-Cookies.
    const lines = setCookies.flatMap((s) => s.split(/\r?\n/)).slice(0, MAX_COOKIES);
    for (const line of lines) this.#storeOne(u, line);
  }

  cookieHeader(url: string): string | undefined {
    const u = httpUrl(url);
    if (!u) return undefined;
    this.#evictExpired();
    const host = hostOf(u);
    const site = siteOf(u.href);
    const https = u.protocol === "https:";
    const matching = this.#cookies.filter(
      (c) =>
        c.site === site &&
        (c.hostOnly ? host === c.domain : domainMatch(host, c.domain)) &&
        pathMatch(u.pathname, c.path) &&
        (https || !c.secure),
    );
    if (matching.length === 0) return undefined;
    // §5.4 step 2: longer paths first, then earlier creation first.
    matching.sort((a, b) => b.path.length - a.path.length || a.seq - b.seq);
    return matching.map((c) => `${c.name}=${c.value}`).join("; ");
  }

  #storeOne(u: URL, line: string): void {
    // RFC 6265bis §5.7: a control character (other than tab) voids the whole cookie.
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(line)) return;
    const [pair = "", ...attrs] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq < 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (name === "" || name.length + value.length > MAX_COOKIE_BYTES) return;

    const now = this.#clock.now();
    let expiresAt: number | undefined;
    let maxAgeAt: number | undefined;
    let domainAttr: string | undefined;
    let path: string | undefined;
    let secure = false;
    for (const attr of attrs.slice(0, 32)) {
      const aeq = attr.indexOf("=");
      const key = (aeq < 0 ? attr : attr.slice(0, aeq)).trim().toLowerCase();
      const val = aeq < 0 ? "" : attr.slice(aeq + 1).trim();
      if (val.length > MAX_ATTRIBUTE_VALUE) continue;
      if (key === "expires") {
        const t = parseCookieDate(val);
        if (t !== undefined) expiresAt = t;
      } else if (key === "max-age") {
        if (!/^-?\d+$/.test(val)) continue;
        const delta = Number(val);
        maxAgeAt = delta <= 0 ? Number.NEGATIVE_INFINITY : now + delta * 1000;
      } else if (key === "domain") {
        if (val !== "") domainAttr = val.replace(/^\./, "").toLowerCase();
      } else if (key === "path") {
        path = val.startsWith("/") ? val : undefined;
      } else if (key === "secure") {
        secure = true;
      }
    }
    // §5.3 step 3: Max-Age wins over Expires.
    const expiry = maxAgeAt ?? expiresAt;

    const host = hostOf(u);
    let domain = host;
    let hostOnly = true;
    if (domainAttr !== undefined) {
      // §5.3 step 5: never a cookie for a public suffix (private section too: github.io).
      if (getPublicSuffix(domainAttr, { allowPrivateDomains: true }) === domainAttr) {
        if (domainAttr !== host) return;
      } else {
        if (!domainMatch(host, domainAttr)) return;
        domain = domainAttr;
        hostOnly = false;
      }
    }
    // RFC 6265bis §5.7: only a secure origin may set Secure cookies; prefixes are promises.
    if (secure && u.protocol !== "https:") return;
    if (name.startsWith("__Secure-") && !secure) return;
    if (name.startsWith("__Host-") && (!secure || !hostOnly || path !== "/")) return;

    const cookie: StoredCookie = {
      name,
      value,
      domain,
      hostOnly,
      path: path ?? defaultPath(u),
      secure,
      expiresAt: expiry,
      seq: this.#seq++,
      site: siteOf(u.href),
    };
    const same = (c: StoredCookie) =>
      c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path;
    const old = this.#cookies.find(same);
    if (old) cookie.seq = old.seq; // §5.3 step 11: keep the old creation time
    this.#cookies = this.#cookies.filter((c) => !same(c));
    if (expiry !== undefined && expiry <= now) return; // an expired cookie only deletes
    this.#cookies.push(cookie);
    if (this.#cookies.length > MAX_COOKIES) {
      this.#cookies.sort((a, b) => a.seq - b.seq);
      this.#cookies = this.#cookies.slice(-MAX_COOKIES);
    }
  }

  #evictExpired(): void {
    const now = this.#clock.now();
    this.#cookies = this.#cookies.filter((c) => c.expiresAt === undefined || c.expiresAt > now);
  }
}
