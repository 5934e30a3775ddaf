import { nightOf } from "../policy/night-date.js";
import { newHolderId } from "../store/holder.js";
import { type FetcherOptions, resolveOptions } from "./options.js";
import { type Call, compose, type Handler, type Reply } from "./pipeline.js";
import { archive } from "./steps/archive.js";
import { classify } from "./steps/classify.js";
import { ClosedSites, closedSite } from "./steps/closed-site.js";
import { headWait } from "./steps/head-wait.js";
import { identity } from "./steps/identity.js";
import { journal } from "./steps/journal.js";
import { limits } from "./steps/limits.js";
import { redirects } from "./steps/redirects.js";
import { retries } from "./steps/retries.js";
import { CrawlDelays, robotsGate } from "./steps/robots-gate.js";
import { SiteQueue, siteGate } from "./steps/site-gate.js";
import { send } from "./steps/transport.js";
import { urlCheck } from "./steps/url-check.js";
import { validators } from "./steps/validators.js";
import { createUndiciTransport, type UndiciTransport } from "./transport-undici.js";
import type { Fetcher, FetchOutcome, FetchRequest } from "./types.js";

export type { FetcherOptions } from "./options.js";

export type PoliteFetcher = Fetcher & {
  /** This fetcher's name in the journal's leases. */
  holder: string;
  close(): Promise<void>;
};

/**
 * The one way out of the program: every request, a page or a robots.txt, goes down these
 * steps in this order (each in src/net/steps/, each a function of the next):
 *
 *   URL check (P3) → redirects (P19, each hop through all below) → closed site (P21) →
 *   robots gate (P16, P18, P20; a robots.txt request re-enters this pipeline from the top) →
 *   validators (P12) → identity (P1, P3, P22) → retries (P15) → site gate (P9, P10, P13:
 *   lane, gap, the journal's admission writes the row) → journal (P27: the row completed) →
 *   classify (P15, P21) → archive (P8) → limits (P14) → head wait (P15: a wait the head asks
 *   for, journaled before the body is read) → transport.
 */
export function createFetcher(opts: FetcherOptions): PoliteFetcher {
  const { userAgent, gapFor } = resolveOptions(opts);
  const own: UndiciTransport | undefined = opts.transport
    ? undefined
    : createUndiciTransport(opts.transportOptions ?? {});
  const holder = opts.holder ?? newHolderId(() => opts.ids.uuid().slice(0, 8));
  const { clock } = opts;
  const night = () => opts.night ?? nightOf(clock.now());
  const closed = new ClosedSites();
  const delays = new CrawlDelays(opts.robotsCache);

  const top: Handler = compose(
    [
      urlCheck(),
      redirects({ clock, ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}) }),
      closedSite({ closed, night }),
      robotsGate({
        clock,
        cache: opts.robotsCache,
        delays,
        ...(opts.night !== undefined ? { night: opts.night } : {}),
        fetch: (call) => top(call),
      }),
      validators(),
      identity({ userAgent }),
      retries(),
      siteGate({
        clock,
        journal: opts.journal,
        holder,
        queue: new SiteQueue(),
        night,
        ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
        floorGap: gapFor,
        crawlDelayMs: (url) => delays.of(url),
      }),
      journal({ clock, journal: opts.journal, holder, closed }),
      classify({ clock }),
      archive({
        ...(opts.archive ? { archive: opts.archive } : {}),
        ...(opts.night !== undefined ? { night: opts.night } : {}),
      }),
      limits({ clock }),
      headWait({ clock, journal: opts.journal }),
    ],
    send(opts.transport ?? own!),
  );

  async function fetch(req: FetchRequest): Promise<FetchOutcome> {
    const call: Call = {
      method: req.method ?? "GET",
      url: req.url,
      ...(req.body !== undefined ? { body: req.body } : {}),
      ...(req.contentType !== undefined ? { contentType: req.contentType } : {}),
      ...(req.accept !== undefined ? { accept: req.accept } : {}),
      purpose: req.purpose,
      ...(req.source !== undefined ? { source: req.source } : {}),
      keepBody: req.keepBody !== false,
      ...(req.signal ? { signal: req.signal } : {}),
      ...(req.held ? { held: req.held } : {}),
      ...(req.notHeldWhy ? { notHeldWhy: req.notHeldWhy } : {}),
      chain: [],
      ...(req.validators ? { validators: req.validators } : {}),
      ...(req.validatorsFor ? { validatorsFor: req.validatorsFor } : {}),
      ...(req.cookieJar ? { cookieJar: req.cookieJar } : {}),
      headers: {},
    };
    return outcomeOf(await top(call), req.url);
  }

  return {
    fetch,
    holder,
    close: async () => {
      await own?.close();
    },
  };
}

/** Only a final reply reaches the caller; anything else is a step left unwired (a bug). */
function outcomeOf(reply: Reply, url: string): FetchOutcome {
  if (reply.kind === "final") return reply.outcome;
  return { kind: "error", url, status: null, reason: `the pipeline ended on "${reply.kind}"` };
}
