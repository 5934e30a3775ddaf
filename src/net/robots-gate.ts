import type { Clock } from "../clock.js";
import { MAX_REDIRECTS, ROBOTS_MAX_BYTES, ROBOTS_TTL_MS } from "../policy/constants.js";
import { detectChallenge } from "../policy/refusal.js";
import {
  classifyRobotsAnswer,
  decodeRobotsBody,
  type RobotsFetchResult,
  robotsUrlFor,
} from "../policy/robots/index.js";
import type { AttemptResult } from "./exchange.js";
import { checkUrl } from "./redirects.js";
import type { CachedRobots, RobotsCachePort, Validators } from "./types.js";

/** One robots.txt request, sent by the fetcher through the site gate and the log. */
export type RobotsSend = (
  url: string,
  validators: Validators | undefined,
  label: (r: AttemptResult) => string,
  source: string | undefined,
) => Promise<AttemptResult | "deadline" | { siteClosed: string }>;

export type RobotsLookup =
  | { kind: "result"; result: RobotsFetchResult; entry: CachedRobots }
  | { kind: "deadline" }
  /** A robots.txt redirect led into a site closed tonight (P21): nothing was sent there. */
  | { kind: "site-closed"; reason: string }
  /**
   * The fetch itself met a no (TLS, or a challenge page served as robots.txt, P21) or the
   * address guard: the page fetch reports that, and nothing is cached.
   */
  | { kind: "stopped"; attempt: AttemptResult };

/**
 * P16, P20: the origin's robots.txt, read at most once per ROBOTS_TTL_MS and cached. A 304
 * to our stored validators refreshes it. "unreachable" holds for the rest of the night (the
 * stored `night`, or this fetcher's life when there is no night). Concurrent callers for one
 * origin share one fetch.
 */
export class RobotsGate {
  readonly #inflight = new Map<string, Promise<RobotsLookup>>();
  readonly #unreachableThisRun = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly cache: RobotsCachePort,
    private readonly send: RobotsSend,
    private readonly night?: string,
  ) {}

  lookup(url: string, source?: string): Promise<RobotsLookup> {
    const origin = new URL(url).origin;
    let p = this.#inflight.get(origin);
    if (!p) {
      p = this.#lookup(origin, url, source).finally(() => this.#inflight.delete(origin));
      this.#inflight.set(origin, p);
    }
    return p;
  }

  #fresh(e: CachedRobots): boolean {
    if (e.state === "unreachable") {
      if (this.#unreachableThisRun.has(e.origin)) return true;
      return this.night !== undefined && e.night === this.night;
    }
    return this.clock.now() - e.fetchedAt < ROBOTS_TTL_MS;
  }

  async #lookup(origin: string, url: string, source: string | undefined): Promise<RobotsLookup> {
    const cached = await this.cache.get(origin);
    if (cached && this.#fresh(cached))
      return { kind: "result", result: toResult(cached), entry: cached };
    const conditional =
      cached?.state === "rules" && (cached.etag || cached.lastModified)
        ? {
            ...(cached.etag ? { etag: cached.etag } : {}),
            ...(cached.lastModified ? { lastModified: cached.lastModified } : {}),
          }
        : undefined;
    let target = robotsUrlFor(url);
    // RFC 9309 §2.3.1.2: up to five redirects, even across hosts; rules apply to `origin`.
    for (let redirects = 0; ; redirects++) {
      const conds = redirects === 0 ? conditional : undefined;
      const r = await this.send(target, conds, (x) => robotsLabel(x, redirects, target), source);
      if (r === "deadline") return { kind: "deadline" };
      if ("siteClosed" in r) return { kind: "site-closed", reason: r.siteClosed };
      if (r.kind === "failure" && (r.failure === "tls" || r.failure === "blocked-address")) {
        return { kind: "stopped", attempt: r };
      }
      // P21: a challenge or block page is a no whatever it is served for; never "rules".
      if (challenged(r, target)) return { kind: "stopped", attempt: r };
      // Only a 304 to the request that carried our validators refreshes the copy (RFC 9110
      // §15.4.5); an unasked-for 304 on a later hop is no answer (RFC 9309 §2.4: ≤ 24 h).
      if (r.kind === "response" && r.status === 304 && cached && conds) {
        const entry: CachedRobots = { ...cached, fetchedAt: this.clock.now() };
        await this.cache.put(entry);
        return { kind: "result", result: toResult(entry), entry };
      }
      const location = r.kind === "response" ? r.headers["location"] : undefined;
      if (r.kind === "response" && r.status >= 300 && r.status < 400 && location) {
        if (redirects < MAX_REDIRECTS) {
          // P3: a Location with user-info (or not http(s)) is never sent, stripped or not.
          const next = resolveLocation(location, target);
          if (!next.ok) return this.#store(origin, unreachable(r, `redirect to ${next.reason}`));
          target = next.url.href;
          continue;
        }
        return this.#store(origin, unreachable(r, "more than 5 redirects"));
      }
      const stored = await this.#store(origin, answer(r, redirects));
      // P11, P16: the answer a redirect reached at another origin's /robots.txt is that
      // origin's robots.txt too; it is cached for it, and not asked for again today.
      const reached = new URL(target);
      if (
        redirects > 0 &&
        reached.origin !== origin &&
        reached.pathname === "/robots.txt" &&
        !reached.search
      ) {
        const own = answer(r, 0);
        if (own.state !== "unreachable") await this.#store(reached.origin, own);
      }
      return stored;
    }
  }

  async #store(
    origin: string,
    e: Omit<CachedRobots, "origin" | "fetchedAt">,
  ): Promise<RobotsLookup> {
    const entry: CachedRobots = {
      origin,
      fetchedAt: this.clock.now(),
      ...e,
      ...(e.state === "unreachable" && this.night !== undefined ? { night: this.night } : {}),
    };
    if (entry.state === "unreachable") this.#unreachableThisRun.add(origin);
    await this.cache.put(entry);
    return { kind: "result", result: toResult(entry), entry };
  }
}

function unreachable(r: AttemptResult, reason: string): Omit<CachedRobots, "origin" | "fetchedAt"> {
  return { state: "unreachable", status: r.kind === "response" ? r.status : null, reason };
}

/** One final robots.txt answer → the entry to cache (P16, P20). */
export function answer(
  r: AttemptResult,
  redirects: number,
): Omit<CachedRobots, "origin" | "fetchedAt"> {
  if (r.kind === "failure") return unreachable(r, `${r.failure}: ${r.message}`);
  // Reaching the limit is fine (the parser drops the partial last line); a cut is not.
  const complete = r.read.kind === "complete" || r.read.kind === "too-large";
  const state = classifyRobotsAnswer({ status: r.status, complete, redirectsFollowed: redirects });
  if (state === "unreachable") {
    const why = complete ? `HTTP ${r.status}` : `HTTP ${r.status}, body ${r.read.kind}`;
    return unreachable(r, why);
  }
  const base = {
    status: r.status,
    ...(r.headers["etag"] ? { etag: r.headers["etag"] } : {}),
    ...(r.headers["last-modified"] ? { lastModified: r.headers["last-modified"] } : {}),
  };
  if (state === "allow-all") return { state, ...base };
  const bytes =
    r.read.kind === "complete" || r.read.kind === "too-large" ? r.read.body : new Uint8Array();
  // P17: the one decode. The cache keeps this text and the parser reads it as it is.
  return { state, ...base, body: decodeRobotsBody(bytes, ROBOTS_MAX_BYTES).text };
}

function resolveLocation(location: string, base: string) {
  let href: string;
  try {
    href = new URL(location, base).href;
  } catch {
    return { ok: false as const, reason: `a bad Location ${JSON.stringify(location)}` };
  }
  return checkUrl(href);
}

function challenged(r: AttemptResult, url: string): boolean {
  if (r.kind !== "response" || r.read.kind !== "complete") return false;
  return detectChallenge({ status: r.status, headers: r.headers, body: r.read.body, url }) !== null;
}

/** The log's name for a robots.txt attempt (P27). */
function robotsLabel(r: AttemptResult, redirects: number, url: string): string {
  if (r.kind === "failure")
    return r.failure === "tls"
      ? "refused"
      : r.failure === "blocked-address"
        ? "blocked-address"
        : "unreachable";
  if (challenged(r, url)) return "refused";
  if (r.status === 304) return "not-modified";
  if (r.status >= 300 && r.status < 400 && r.headers["location"]) {
    return redirects < MAX_REDIRECTS ? "redirect" : "unreachable";
  }
  return answer(r, redirects).state;
}

function toResult(e: CachedRobots): RobotsFetchResult {
  if (e.state === "rules") return { state: "rules", body: e.body ?? "" };
  if (e.state === "allow-all") return { state: "allow-all" };
  return { state: "unreachable", reason: e.reason ?? "unreachable" };
}

/** Robots bodies are read one byte past the limit so the decoder knows it was cut there. */
export const ROBOTS_READ_LIMIT = ROBOTS_MAX_BYTES + 1;
