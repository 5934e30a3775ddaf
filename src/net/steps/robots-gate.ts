import type { Clock } from "../../clock.js";
import { NorError } from "../../errors.js";
import { PRODUCT_TOKEN } from "../../policy/constants.js";
import { nightOf } from "../../policy/night-date.js";
import {
  type RobotsFetchResult,
  robotsCopyServes,
  robotsCopyServesUntil,
  robotsUrlFor,
  robotsVerdict,
} from "../../policy/robots/index.js";
import { siteOf } from "../../policy/site.js";
import {
  type Call,
  final,
  type Handler,
  heldNow,
  NotHeld,
  type Reply,
  type Step,
} from "../pipeline.js";
import { unreachable } from "../robots-answer.js";
import type { CachedRobots, FetchOutcome, RobotsCachePort, Validators } from "../types.js";
import { SENDS_USED_UP } from "./site-gate.js";

/**
 * P10 across a restart: an origin's Crawl-delay, from this process's first request on (a
 * stored robots.txt governs until it is read again, its own refresh included), then from each
 * verdict the robots gate reaches. The site gate reads it before each admission. While the
 * store holds no robots.txt of the origin, it is read again each time: another process (a
 * machine of its own) may store one, and its Crawl-delay then holds here too.
 */
export class CrawlDelays {
  readonly #ms = new Map<string, number>();
  constructor(private readonly cache: RobotsCachePort) {}

  async of(url: string): Promise<number> {
    const origin = new URL(url).origin;
    const known = this.#ms.get(origin);
    if (known !== undefined) return known;
    const cached = await this.cache.get(origin);
    // A verdict reached meanwhile is newer than the stored file.
    const mine = this.#ms.get(origin);
    if (mine !== undefined) return mine;
    if (cached === undefined) return 0;
    const seconds =
      cached.state === "rules"
        ? robotsVerdict({ state: "rules", body: cached.body ?? "" }, url, PRODUCT_TOKEN)
            .crawlDelaySeconds
        : undefined;
    const ms = (seconds ?? 0) * 1000;
    this.#ms.set(origin, ms);
    return ms;
  }

  set(origin: string, ms: number): void {
    this.#ms.set(origin, ms);
  }
}

export interface RobotsGateDeps {
  clock: Clock;
  cache: RobotsCachePort;
  delays: CrawlDelays;
  /**
   * The night (YYYY-MM-DD) an "unreachable" holds for (P20); without one (`nor discover` outside
   * a night), this fetcher's life and the rest of the day it was found (policy/robots/copy-age.ts).
   */
  night?: string;
  /** The whole pipeline, from the top: robots.txt is a request like any other (P9, P10, P21). */
  fetch: Handler;
}

/** The asker's hold on its work, and why it is gone when it is (FetchRequest.held, notHeldWhy). */
type Hold = Pick<Call, "held" | "notHeldWhy">;

type Lookup =
  /** servesUntil: when the copy they come from stops serving (robotsCopyServesUntil). */
  | { kind: "rules"; result: RobotsFetchResult; servesUntil: number }
  /** Not read, and nothing cached: the deadline passed, the site is closed, or a no (P21). */
  | { kind: "stopped"; outcome: FetchOutcome };

/**
 * P16, P18, P20: a request goes only where its origin's robots.txt explicitly allows it;
 * robots.txt unknown or unreachable means not sent (politeness never fails open). The file is
 * read once each night (a copy read within the hour, or outside a night on the day the night is
 * named for or on the day it is run, serves) and cached, and no copy is used past
 * ROBOTS_TTL_MS; a 304 to our stored validators refreshes it; "unreachable" holds for the rest
 * of the night (outside a night, of the day). Which stored answer stands is the policy's
 * (policy/robots/copy-age.ts), for a night and `nor discover` alike. Concurrent requests share
 * one read. A
 * robots.txt request itself passes (P18: robots.txt aside).
 */
/** Robots entries kept in memory by one fetcher (see `recent`). */
const RECENT_MAX = 256;

export function robotsGate(deps: RobotsGateDeps): Step {
  const inflight = new Map<string, Promise<Lookup>>();
  const unreachableThisRun = new Set<string>();
  /**
   * The latest entries this process read or wrote, most recent last: while one is fresh it is
   * the same answer the store holds (a fresh entry is replaced only by a newer reading of the
   * same file), so a lane's requests skip a round trip each. Bounded: lanes run site by site.
   */
  const recent = new Map<string, CachedRobots>();
  const remember = (e: CachedRobots) => {
    recent.delete(e.origin);
    recent.set(e.origin, e);
    if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value as string);
  };

  // P16, P20: the policy's rule (policy/robots/copy-age.ts), and what this fetcher found
  // unreachable itself or went by as unreachable (another command's answer, `nor discover`'s
  // that day), which holds for its whole life: a night that kept off an origin on it keeps off
  // the whole night, past midnight too.
  const fresh = (e: CachedRobots): boolean =>
    (e.state === "unreachable" && unreachableThisRun.has(e.origin)) ||
    robotsCopyServes(e, deps.clock.now(), deps.night);

  const store = async (origin: string, e: Omit<CachedRobots, "origin" | "fetchedAt">) => {
    // The night it was read in: an unreachable holds for it (P20), any answer serves it (P16).
    const entry: CachedRobots = {
      origin,
      fetchedAt: deps.clock.now(),
      ...e,
      ...(deps.night !== undefined ? { night: deps.night } : {}),
    };
    if (entry.state === "unreachable") unreachableThisRun.add(origin);
    await deps.cache.put(entry);
    remember(entry);
    return entry;
  };

  /** The answer the pipeline gave to the robots.txt request → what the origin's rules are. */
  const settle = async (
    origin: string,
    cached: CachedRobots | undefined,
    reply: Reply,
  ): Promise<Lookup> => {
    if (reply.kind === "final") {
      const o = reply.outcome;
      if (o.kind === "deadline" || o.kind === "site-closed" || o.kind === "site-down")
        return { kind: "stopped", outcome: o };
      // This site's owner asked for the whole of it to be left alone: said for the page as it
      // is, and nothing is cached for the origin (a rule cleared tomorrow asks robots.txt then).
      // A redirect into a path another site's owner left alone is no word of this site's: its
      // robots.txt could not be read, so unreachable (below, P20).
      if (o.kind === "disallowed") {
        if (siteOf(o.url) === siteOf(origin)) return { kind: "stopped", outcome: o };
        const why = `its robots.txt redirects to ${o.url}, which that site's owner asked to be left alone`;
        return rules(await store(origin, unreachable(reply.got?.answer, why)), deps.night);
      }
      if (o.kind === "refused" || o.kind === "blocked-address") {
        return { kind: "stopped", outcome: o };
      }
      // Its sends used up by the checker's own crashes (robots.txt is never retried, so only
      // those use them): the checker's failure, not the site's robots.txt unavailable (P20).
      if (o.kind === "error" && o.reason === SENDS_USED_UP) return { kind: "stopped", outcome: o };
      // A bad redirect, every attempt interrupted, …: unknown, so unreachable (P20).
      const reason = "reason" in o && o.reason !== undefined ? o.reason : o.kind;
      return rules(await store(origin, unreachable(reply.got?.answer, reason)), deps.night);
    }
    if (reply.kind !== "robots") {
      throw new NorError("E_INTERNAL", `robots.txt request ended on "${reply.kind}"`);
    }
    if (reply.notModified && cached) {
      const { night: _read, ...copy } = cached;
      const entry: CachedRobots = {
        ...copy,
        fetchedAt: deps.clock.now(),
        ...(deps.night !== undefined ? { night: deps.night } : {}),
      };
      await deps.cache.put(entry);
      return rules(entry, deps.night);
    }
    const entry = await store(origin, reply.entry);
    // P11, P16: the answer a redirect reached at another origin's /robots.txt is that
    // origin's robots.txt too; it is cached for it, and not asked for again today.
    const reached = new URL(reply.url);
    if (
      reached.origin !== origin &&
      reached.pathname === "/robots.txt" &&
      !reached.search &&
      reply.entry.state !== "unreachable"
    ) {
      await store(reached.origin, reply.entry);
    }
    return rules(entry, deps.night);
  };

  /**
   * The origin's rules when they are known and fresh (this process's latest, else the store's),
   * and the store's entry, fresh or not (its validators ask again).
   */
  const known = async (
    origin: string,
  ): Promise<{ rules: Lookup | undefined; cached: CachedRobots | undefined }> => {
    const mine = recent.get(origin);
    if (mine && fresh(mine)) return { rules: rules(mine, deps.night), cached: undefined };
    const cached = await deps.cache.get(origin);
    if (cached && fresh(cached)) {
      if (cached.state === "unreachable") unreachableThisRun.add(origin);
      // P16, P11: a copy read within the hour before tonight's first request here (another
      // command's, or the night before's) is tonight's read: it serves the rest of the night,
      // as one read tonight would, and is not asked again an hour into it. Its age still counts
      // from when it was read (ROBOTS_TTL_MS).
      // P20: an unreachable another command found (`nor discover`) that a past night caught up
      // the same day goes by holds for that night only while that day lasts (the day it was
      // found, policy/robots/copy-age.ts); the night's no lasts the whole night, in every
      // process of it (resumed past midnight, its other workers): it becomes the night's own.
      const adopted =
        deps.night !== undefined &&
        cached.night !== deps.night &&
        (cached.state !== "unreachable" ||
          (cached.night === undefined &&
            !(Number.isFinite(cached.fetchedAt) && nightOf(cached.fetchedAt) === deps.night)))
          ? { ...cached, night: deps.night }
          : cached;
      if (adopted !== cached) await deps.cache.put(adopted);
      remember(adopted);
      return { rules: rules(adopted, deps.night), cached: adopted };
    }
    return { rules: undefined, cached };
  };

  /**
   * P11, P16: the latest read of each origin begun here, shared or a call's own. A read waits
   * for the one before it to end before it looks for a fresh copy, so two reads of one origin
   * (a call's own after the shared ones it joined were lost, and a shared one a newcomer began
   * meanwhile) never both send: the later finds what the earlier stored.
   */
  const reading = new Map<string, Promise<unknown>>();

  const read = (
    origin: string,
    url: string,
    source: string | undefined,
    signal: AbortSignal | undefined,
    hold: Hold,
  ): Promise<Lookup> => {
    const before = reading.get(origin);
    const p = (
      before === undefined
        ? readNow(origin, url, source, signal, hold)
        : untilStopped(
            before.then(
              () => undefined,
              () => undefined,
            ),
            signal,
          ).then(() => readNow(origin, url, source, signal, hold))
    ).finally(() => {
      if (reading.get(origin) === p) reading.delete(origin);
    });
    reading.set(origin, p);
    return p;
  };

  const readNow = async (
    origin: string,
    url: string,
    source: string | undefined,
    signal: AbortSignal | undefined,
    hold: Hold,
  ): Promise<Lookup> => {
    const { rules: now, cached } = await known(origin);
    if (now) return now;
    const validators: Validators | undefined =
      cached?.state === "rules" && (cached.etag || cached.lastModified)
        ? {
            ...(cached.etag ? { etag: cached.etag } : {}),
            ...(cached.lastModified ? { lastModified: cached.lastModified } : {}),
          }
        : undefined;
    const call: Call = {
      method: "GET",
      url: robotsUrlFor(url),
      accept: "text/plain, */*;q=0.5",
      purpose: "robots",
      ...(source !== undefined ? { source } : {}),
      keepBody: true,
      robotsFor: origin,
      chain: [],
      ...(validators ? { validators } : {}),
      // The asker's stop stops it too (a night's stop is every request's): it then throws,
      // its row says so, and nothing is cached for the origin.
      ...(signal ? { signal } : {}),
      // And the asker's hold on its work (a night's lane): a worker frozen while this read
      // waited to leave sends it no more once the lane is another's (NotHeld, P8, P9).
      ...(hold.held ? { held: hold.held } : {}),
      ...(hold.notHeldWhy ? { notHeldWhy: hold.notHeldWhy } : {}),
      headers: {},
    };
    return settle(origin, cached, await deps.fetch(call));
  };

  const shared = (
    url: string,
    source: string | undefined,
    signal: AbortSignal | undefined,
    hold: Hold,
  ): Promise<Lookup> => {
    const origin = new URL(url).origin;
    let p = inflight.get(origin);
    if (!p) {
      p = read(origin, url, source, signal, hold).finally(() => inflight.delete(origin));
      inflight.set(origin, p);
    }
    return p;
  };

  /**
   * The origin's rules for `call`: the read in flight shared, or one started with the call's
   * stop and hold. A shared read that ended because its starter's work is no longer held
   * (NotHeld: another lane's) is started again for this call, which still holds its own. After
   * two such, the third read is the call's own, not shared: only its own hold can stop it (a
   * call whose lane is held never hears NotHeld, which its night would record as the checker's
   * error for the source, however many other lanes were lost meanwhile).
   */
  const lookup = async (call: Call): Promise<Lookup> => {
    for (let i = 0; ; i++) {
      try {
        if (i >= 2) {
          const origin = new URL(call.url).origin;
          return await read(origin, call.url, call.source, call.signal, call);
        }
        return await shared(call.url, call.source, call.signal, call);
      } catch (err) {
        if (!(err instanceof NotHeld) || i >= 2) throw err;
        const held = heldNow(call);
        if (held !== true && !(await held)) throw err;
      }
    }
  };

  /**
   * Which origin's robots.txt read each read in flight waits on, to judge a hop of its own
   * (`hopRules`): a read never waits on one that waits, directly or not, on it.
   */
  const waitsOn = new Map<string, string>();
  const reaches = (from: string, to: string): boolean => {
    let at: string | undefined = from;
    for (let i = 0; at !== undefined && i <= waitsOn.size; i++) {
      if (at === to) return true;
      at = waitsOn.get(at);
    }
    return false;
  };

  /** Origins whose robots.txt read in flight was started to judge another read's hop. */
  const nested = new Set<string>();

  /**
   * P18, P19: the rules of robots.txt of `origin`, where the robots.txt read of `robotsFor` is
   * redirected into one of its pages: known and fresh, or read now (or the read in flight
   * awaited, until the asker's stop). Undefined when they cannot be had: that read waits,
   * directly or not, on this one (two robots.txt files redirected into each other's pages), or
   * this read was itself started to judge another's hop (one read so started a hop at most:
   * never a chain of reads of origins no source names).
   */
  const hopRules = async (
    origin: string,
    robotsFor: string,
    call: Call,
  ): Promise<Lookup | undefined> => {
    const now = (await known(origin)).rules;
    if (now) return now;
    // From here to the wait noted, nothing yields: no other read can start waiting meanwhile.
    if (nested.has(robotsFor) || reaches(origin, robotsFor)) return undefined;
    const starts = !inflight.has(origin);
    const p = lookup(call);
    if (starts) {
      nested.add(origin);
      const done = () => void nested.delete(origin);
      p.then(done, done);
    }
    waitsOn.set(robotsFor, origin);
    try {
      return await untilStopped(p, call.signal);
    } finally {
      waitsOn.delete(robotsFor);
    }
  };

  /**
   * A hop of a robots.txt read: within the origin whose robots.txt it is, or to another
   * origin's own /robots.txt, it is robots.txt itself (P18) and goes. Into another origin's
   * page, that origin's robots.txt must allow it (P18, P19); when it does not, or cannot be read,
   * the hop is not sent, and the robots.txt read ends unreachable (P20, the stricter side).
   */
  const robotsHop = async (call: Call, robotsFor: string, next: Handler): Promise<Reply> => {
    const hop = new URL(call.url);
    if (hop.origin === robotsFor || (hop.pathname === "/robots.txt" && hop.search === ""))
      return next(call);
    for (let pass = 0; pass < ROBOTS_PASSES; pass++) {
      const found = await hopRules(hop.origin, robotsFor, call);
      // The checker's own limits met on the way (the deadline, its sends used up by its own
      // crashes) are no word of either site's: said as they are, and nothing is kept of them; so
      // is the hop's site down tonight (nothing asked of it: not its robots.txt unreadable).
      if (
        found?.kind === "stopped" &&
        (found.outcome.kind === "deadline" ||
          found.outcome.kind === "site-down" ||
          (found.outcome.kind === "error" && found.outcome.reason === SENDS_USED_UP))
      )
        return final({ ...found.outcome, url: call.url });
      const verdict =
        found?.kind === "rules" ? robotsVerdict(found.result, call.url, PRODUCT_TOKEN) : undefined;
      if (found?.kind === "rules" && verdict?.verdict === "allowed") {
        deps.delays.set(hop.origin, (verdict.crawlDelaySeconds ?? 0) * 1000);
        const reply = await next({ ...call, robotsServesUntil: found.servesUntil });
        // The copy stopped serving before the hop left: decided again on a fresh one (P16).
        if (reply.kind === "robots-stale") continue;
        return reply;
      }
      const why =
        verdict?.verdict === "disallowed"
          ? `its robots.txt redirects to ${call.url}, which ${hop.origin}'s robots.txt disallows`
          : `its robots.txt redirects to ${call.url}, and ${hop.origin}'s robots.txt could not be read to allow it`;
      return final({ kind: "robots-unavailable", url: call.url, origin: robotsFor, reason: why });
    }
    return final({ kind: "deadline", url: call.url, reason: KEPT_GOING_STALE });
  };

  return (next) => async (call) => {
    if (call.robotsFor !== undefined) return robotsHop(call, call.robotsFor, next);
    // P16 at the moment of sending: the copy a request is allowed on goes down with it
    // (Call.robotsServesUntil); one that stopped serving before the request could leave (the
    // gap, a Crawl-delay, a retry's wait) sends nothing, and the request is decided again
    // here, on robots.txt read again under the usual rules. Bounded: a fresh copy serves a
    // day, so a second pass stale means a clock gone wrong; then not tonight (never sent).
    for (let pass = 0; pass < ROBOTS_PASSES; pass++) {
      const found = await lookup(call);
      // The robots.txt request met the deadline, a closed site, a no or the address guard:
      // that is this URL's answer. One that could not be asked for the checker's own failures
      // (its sends used up by crashes) leaves this URL not sent: no answer about it (P7).
      if (found.kind === "stopped") {
        const o = found.outcome;
        if (o.kind === "error") {
          const { noAnswer: _, ...rest } = o;
          return final({ ...rest, url: call.url, notSent: true });
        }
        return final({ ...o, url: call.url });
      }
      const origin = new URL(call.url).origin;
      const verdict = robotsVerdict(found.result, call.url, PRODUCT_TOKEN);
      deps.delays.set(origin, (verdict.crawlDelaySeconds ?? 0) * 1000);
      if (verdict.verdict === "disallowed") return final({ kind: "disallowed", url: call.url });
      if (verdict.verdict !== "allowed") {
        const reason = verdict.reason ?? "robots.txt unknown";
        return final({ kind: "robots-unavailable", url: call.url, origin, reason });
      }
      const reply = await next({ ...call, robotsServesUntil: found.servesUntil });
      if (reply.kind !== "robots-stale") return reply;
    }
    return final({ kind: "deadline", url: call.url, reason: KEPT_GOING_STALE });
  };
}

/** Passes through the robots gate one request may take, each on a copy read again (P16). */
const ROBOTS_PASSES = 3;

/** Why a request whose robots.txt copy kept going stale before it could leave was not sent. */
const KEPT_GOING_STALE =
  "not sent tonight: the robots.txt copy it was allowed on stopped serving before it could leave, pass after pass (P16)";

/** `p`, or the stop's reason once `signal` says stop, whichever comes first. */
function untilStopped<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", stop);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", stop);
        reject(err);
      },
    );
  });
}

function rules(e: CachedRobots, night: string | undefined): Lookup {
  const result: RobotsFetchResult =
    e.state === "rules"
      ? { state: "rules", body: e.body ?? "" }
      : e.state === "allow-all"
        ? { state: "allow-all" }
        : { state: "unreachable", reason: e.reason ?? "unreachable" };
  return { kind: "rules", result, servesUntil: robotsCopyServesUntil(e, night) };
}
