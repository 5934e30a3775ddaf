import { randomIds } from "../ids.js";
import { MAX_REDIRECTS, PRODUCT_TOKEN } from "../policy/constants.js";
import { robotsVerdict } from "../policy/robots/index.js";
import { siteOf } from "../policy/site.js";
import { newHolderId } from "../store/holder.js";
import { attempts, isClosedEarly } from "./attempts.js";
import { classifyAttempt } from "./classify.js";
import type { AttemptResult, ExchangeDeps } from "./exchange.js";
import { exchange } from "./exchange.js";
import { type FetcherOptions, resolveOptions } from "./options.js";
import { checkUrl, type Hop, nextHop } from "./redirects.js";
import { requestHeaders, validatorsSent } from "./request-headers.js";
import { ROBOTS_READ_LIMIT, RobotsGate } from "./robots-gate.js";
import { SiteQueue } from "./site-gate.js";
import { createUndiciTransport, type UndiciTransport } from "./transport-undici.js";
import type { Fetcher, FetchOutcome, FetchRequest } from "./types.js";

export type { FetcherOptions } from "./options.js";

export type PoliteFetcher = Fetcher & {
  /** This fetcher's name in the journal's leases. */
  holder: string;
  close(): Promise<void>;
};

/**
 * The one way out of the program. Every request, whatever asked for it, passes in this order:
 * URL check (P3) → site closed tonight? (P21) → robots.txt of the origin (P16, P18, P20) →
 * site lane and gap (P9, P10, P13) → send with exactly our headers (P1, P3, P12) → body
 * limits (P14) → classify (P15, P21) → log (P27) and archive (P8) → redirects, each hop
 * from the top again (P19).
 */
export function createFetcher(opts: FetcherOptions): PoliteFetcher {
  const { userAgent, gapFor: floorGap } = resolveOptions(opts);
  const own: UndiciTransport | undefined = opts.transport
    ? undefined
    : createUndiciTransport(opts.transportOptions ?? {});
  const holder = opts.holder ?? newHolderId(() => (opts.ids ?? randomIds).uuid().slice(0, 8));
  const deps: ExchangeDeps = {
    clock: opts.clock,
    queue: new SiteQueue(),
    transport: opts.transport ?? own!,
    journal: opts.journal,
    holder,
    ...(opts.archive ? { archive: opts.archive } : {}),
    ...(opts.night !== undefined ? { night: opts.night } : {}),
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
  };
  const crawlDelayMs = new Map<string, number>();
  const gapFor = (url: string) => {
    const u = new URL(url);
    return Math.max(floorGap(u), crawlDelayMs.get(u.origin) ?? 0);
  };

  const robots = new RobotsGate(
    opts.clock,
    opts.robotsCache,
    async (url, validators, label, source) => {
      // P21: a robots.txt redirect is a request like any other; none goes to a closed site
      // (the journal's admission says so), and a no on it closes the site that said it.
      await seedCrawlDelay(url);
      const sent = validatorsSent(validators);
      const ran = await exchange(deps, {
        method: "GET",
        url,
        headers: requestHeaders({
          userAgent,
          accept: "text/plain, */*;q=0.5",
          ...(sent ? { validators: sent } : {}),
        }),
        purpose: "robots",
        ...(source !== undefined ? { source } : {}),
        ...(sent ? { validatorsSent: sent } : {}),
        limit: ROBOTS_READ_LIMIT,
        gapMs: gapFor(url),
        keepBody: true,
        judge: (r) => {
          const outcome = label(r);
          return {
            outcome,
            final: true,
            closedEarly: isClosedEarly(r),
            ...(outcome === "refused" ? { closeSite: refusalReason(r, url) } : {}),
          };
        },
      });
      if (ran.ran) return ran.value;
      if (ran.why === "closed") return { siteClosed: ran.reason };
      if (ran.why === "exhausted") {
        // Interrupted on every attempt tonight: unknown, so unreachable (P20 fails closed).
        const now = opts.clock.now();
        return {
          kind: "failure",
          failure: "other",
          message: ran.reason,
          startedAt: now,
          endedAt: now,
        };
      }
      return "deadline";
    },
    opts.night,
  );

  /**
   * P10 across a restart: a stored robots.txt's Crawl-delay governs the origin from the first
   * request of this process on, the robots.txt refresh included.
   */
  async function seedCrawlDelay(url: string): Promise<void> {
    const origin = new URL(url).origin;
    if (crawlDelayMs.has(origin)) return;
    const cached = await opts.robotsCache.get(origin);
    const delay =
      cached?.state === "rules"
        ? robotsVerdict({ state: "rules", body: cached.body ?? "" }, url, PRODUCT_TOKEN)
            .crawlDelaySeconds
        : undefined;
    crawlDelayMs.set(origin, (delay ?? 0) * 1000);
  }

  async function fetch(req: FetchRequest): Promise<FetchOutcome> {
    const checked = checkUrl(req.url);
    if (!checked.ok) return { kind: "error", url: req.url, status: null, reason: checked.reason };
    const method = req.method ?? "GET";
    if (req.body !== undefined && method !== "POST") {
      return { kind: "error", url: req.url, status: null, reason: "a body is only sent with POST" };
    }
    const keepBody = req.keepBody !== false;
    const homeSite = siteOf(checked.url.href);
    let hop: Hop = { url: checked.url.href, method };
    if (req.body !== undefined) hop.body = req.body;
    if (req.contentType !== undefined) hop.contentType = req.contentType;
    const chain: string[] = [];
    let purpose = req.purpose;
    for (let redirects = 0; ; ) {
      const url = hop.url;
      const site = siteOf(url);
      await seedCrawlDelay(url);
      const rl = await robots.lookup(url, req.source);
      if (rl.kind === "deadline") return { kind: "deadline", url };
      if (rl.kind === "site-closed") return { kind: "site-closed", url, reason: rl.reason };
      if (rl.kind === "stopped") {
        // The robots.txt request met a no (TLS, a challenge page) or the address guard: that
        // is this URL's answer.
        const step = classifyAttempt(rl.attempt, {
          url,
          attempt: 1,
          now: opts.clock.now(),
          allClosedSoFar: false,
          keepBody,
          chain,
        });
        if (step.kind !== "final")
          return { kind: "error", url, status: null, reason: "robots.txt failed" };
        return step.outcome;
      }
      const verdict = robotsVerdict(rl.result, url, PRODUCT_TOKEN);
      const origin = new URL(url).origin;
      crawlDelayMs.set(origin, (verdict.crawlDelaySeconds ?? 0) * 1000);
      if (verdict.verdict === "disallowed") return { kind: "disallowed", url };
      if (verdict.verdict !== "allowed") {
        return {
          kind: "robots-unavailable",
          url,
          origin,
          reason: verdict.reason ?? "robots.txt unknown",
        };
      }

      // P22: the source's cookies go only back to the source's own site.
      const sameSite = site === homeSite;
      const cookie = sameSite ? req.cookieJar?.cookieHeader(url) : undefined;
      const sent =
        redirects === 0
          ? validatorsSent(req.validators)
          : hop.method === "GET"
            ? validatorsSent(await req.validatorsFor?.(url))
            : undefined;
      const headers = requestHeaders({
        userAgent,
        ...(req.accept !== undefined ? { accept: req.accept } : {}),
        ...(hop.contentType !== undefined ? { contentType: hop.contentType } : {}),
        ...(sent ? { validators: sent } : {}),
        ...(cookie ? { cookie } : {}),
      });
      const step = await attempts(deps, {
        hop,
        headers,
        purpose,
        ...(req.source !== undefined ? { source: req.source } : {}),
        ...(sent ? { validatorsSent: sent } : {}),
        keepBody,
        chain,
        gapMs: gapFor(url),
        ...(req.signal ? { signal: req.signal } : {}),
        onResponse: (r) => {
          if (sameSite && r.setCookies.length > 0) req.cookieJar?.store(url, r.setCookies);
        },
      });
      if (step.kind === "deadline") return { kind: "deadline", url };
      if (step.kind === "closed") return { kind: "site-closed", url, reason: step.reason };
      if (step.kind === "left-alone") return { kind: "disallowed", url, reason: step.reason };
      if (step.kind === "final") return step.outcome;
      if (step.kind === "retry")
        return { kind: "error", url, status: null, reason: "retry left over" };
      // P19: at most five redirects in a row; each hop goes through every gate again.
      chain.push(url);
      if (redirects >= MAX_REDIRECTS) {
        return { kind: "error", url, status: step.status, reason: "too many redirects" };
      }
      const next = nextHop(hop, step.status, step.location);
      if (!next.ok) return { kind: "error", url, status: step.status, reason: next.reason };
      hop = next.hop;
      redirects++;
      purpose = "redirect";
    }
  }

  /** The reason a robots.txt answer was a no (P21), as the page path would word it. */
  function refusalReason(r: AttemptResult, url: string): string {
    const step = classifyAttempt(r, {
      url,
      attempt: 1,
      now: opts.clock.now(),
      allClosedSoFar: false,
      keepBody: true,
      chain: [],
    });
    return step.kind === "final" && step.outcome.kind === "refused"
      ? step.outcome.reason
      : "robots.txt answered with a no";
  }

  return {
    fetch,
    holder,
    close: async () => {
      await own?.close();
    },
  };
}
