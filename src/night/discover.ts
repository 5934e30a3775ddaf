/**
 * `nor discover`: the visits before a source's first night. It reads robots.txt and the
 * homepage only — through the same fetcher, log, gap and archive as the night — and lists the
 * ways in the homepage advertises or links to, with what it could confirm without asking
 * for anything more (P6: no link is followed; P18: robots.txt decides what may be read).
 */
import type { Clock } from "../clock.js";
import { NorError } from "../errors.js";
import type { IdSource } from "../ids.js";
import type { FetchOutcome } from "../net/types.js";
import { DISCOVER_SOURCE } from "../policy/admission.js";
import { decodeBody } from "../policy/body-text.js";
import { DEFAULT_USER_AGENT, PRODUCT_TOKEN } from "../policy/constants.js";
import { robotsCopyServes, robotsVerdict } from "../policy/robots/index.js";
import { type Candidate, discoverCandidates } from "../sources/discover.js";
import { nightUnderWay, nightUserAgent } from "../store/admin.js";
import { archiveDir, WarcArchive } from "../store/archive/index.js";
import { ArchiveValidators } from "../store/archive/validators.js";
import type { Store } from "../store/db.js";
import { SqlRobotsCache } from "../store/robots-cache.js";
import { storeClock } from "../store/store-clock.js";
import { type NetOptions, storeFetcher } from "./store-fetcher.js";
import { fetchOrCopy } from "./stored-copy.js";

export interface DiscoverOptions extends NetOptions {
  clock: Clock;
  ids: IdSource;
  dataDir?: string;
  /** What the archive tells the operator on opening (a WARC file cut short), as the night's. */
  onArchiveNote?(note: string): void;
}

export interface ConfirmedCandidate extends Candidate {
  /** What we know without another request: robots.txt of the homepage's origin, if it covers it. */
  confirmed: string[];
}

export type DiscoverResult =
  | {
      kind: "found";
      homepage: string;
      candidates: ConfirmedCandidate[];
      /** The homepage answered something that is no web page (a PDF, JSON): its type. */
      notPage?: string;
    }
  | { kind: "not-read"; homepage: string; outcome: FetchOutcome };

export async function discover(
  store: Store,
  homepage: string,
  opts: DiscoverOptions,
): Promise<DiscoverResult> {
  // P9, P10 across machines: on PostgreSQL the time is the database server's, as the night's.
  const clock: Clock =
    store.dialect === "postgres" ? await storeClock(store.db, opts.clock) : opts.clock;
  const robotsCache = new SqlRobotsCache(store.db);
  // P21, P20: during a night (even past midnight) discover is one more request of that
  // night: the sites that said no tonight, and tonight's unreachable robots.txt, hold for it.
  const night = await nightUnderWay(store.db, clock.now());
  // P1, P2: and it introduces itself as that night does: a night keeps one User-Agent, so a
  // site sees one contact tonight and the site-owners page names the one every request carried
  // (a shell without the service's NOR_USER_AGENT sent the built-in one mid-night). Refused
  // before anything is opened or asked.
  if (night !== undefined) {
    const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    const begunAs = await nightUserAgent(store.db, night);
    if (begunAs !== undefined && begunAs !== userAgent)
      throw new NorError(
        "E_CONFIG",
        `night ${night} is under way on this store and introduces itself as "${begunAs}" (its requests so far carried it), not as "${userAgent}": nor discover's requests are that night's, and a night keeps one User-Agent (P1), so the site-owners page names the contact every request carried (P2). Run it with --user-agent "${begunAs}" (or NOR_USER_AGENT), or once that night is over`,
      );
  }
  const archive =
    opts.dataDir !== undefined
      ? await WarcArchive.open(archiveDir(opts.dataDir), {
          db: store.db,
          clock,
          ids: opts.ids,
          ...(opts.onArchiveNote ? { note: opts.onArchiveNote } : {}),
        })
      : undefined;
  const fetcher = storeFetcher({
    db: store.db,
    clock,
    ids: opts.ids,
    net: opts,
    ...(archive ? { archive } : {}),
    ...(night !== undefined ? { night } : {}),
  });
  // P12: the homepage's stored validators go with it; a 304 is read from the stored copy.
  const copies = archive ? new ArchiveValidators(store.db, archive.dir) : undefined;
  try {
    const page = await fetchOrCopy(fetcher, copies, {
      url: homepage,
      purpose: "page",
      source: DISCOVER_SOURCE,
    });
    if (page.kind === "failed") return { kind: "not-read", homepage, outcome: page.outcome };
    // Only a web page is looked through for links: a PDF's or a JSON answer's bytes read as
    // HTML would offer whatever they happen to hold.
    const type = (page.contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (type !== "" && type !== "text/html" && type !== "application/xhtml+xml")
      return { kind: "found", homepage: page.url, candidates: [], notPage: type };
    const found = discoverCandidates(decodeBody(page.body, page.contentType), page.url);
    const candidates: ConfirmedCandidate[] = [];
    const at = { now: clock.now(), ...(night !== undefined ? { night } : {}) };
    for (const c of found) candidates.push({ ...c, confirmed: await confirm(robotsCache, c, at) });
    return { kind: "found", homepage: page.url, candidates };
  } finally {
    await fetcher.close();
    await copies?.close();
    await archive?.close();
  }
}

/**
 * What robots.txt of the candidate's origin says of it, from the stored copy only (no request),
 * held to the rules a request is held to (policy/robots/copy-age.ts, P16, P20): a copy too old
 * to go by judges nothing, and every judgement says when the copy was read.
 */
async function confirm(
  cache: SqlRobotsCache,
  c: Candidate,
  at: { now: number; night?: string },
): Promise<string[]> {
  const out = [c.found];
  const origin = new URL(c.url).origin;
  const robots = await cache.get(origin);
  if (!robots) {
    out.push("robots.txt of its origin not read yet (another host)");
    return out;
  }
  const when = ago(at.now - robots.fetchedAt);
  if (!robotsCopyServes(robots, at.now, at.night)) {
    out.push(
      robots.state === "unreachable"
        ? `robots.txt of its origin could not be read when last asked, ${when}; not judged until it is asked again`
        : `robots.txt of its origin last read ${when}, too old to go by; not judged until it is read again`,
    );
    return out;
  }
  const result =
    robots.state === "rules"
      ? ({ state: "rules", body: robots.body ?? "" } as const)
      : robots.state === "allow-all"
        ? ({ state: "allow-all" } as const)
        : ({ state: "unreachable", reason: robots.reason ?? "unreachable" } as const);
  const v = robotsVerdict(result, c.url, PRODUCT_TOKEN);
  out.push(
    v.verdict === "allowed"
      ? `robots.txt allows it (as read ${when})`
      : v.verdict === "disallowed"
        ? `robots.txt disallows it: not usable (as read ${when})`
        : `robots.txt could not be read (asked ${when})`,
  );
  return out;
}

/** How long ago, in words: "just now", "5 minutes ago", "3 hours ago", "4 days ago". */
function ago(ms: number): string {
  if (!Number.isFinite(ms)) return "at an unknown time";
  if (ms < 0) return "at a time ahead of this clock";
  const n = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"} ago`;
  if (ms < 60_000) return "just now";
  if (ms < 60 * 60_000) return n(Math.floor(ms / 60_000), "minute");
  if (ms < 48 * 60 * 60_000) return n(Math.floor(ms / (60 * 60_000)), "hour");
  return n(Math.floor(ms / (24 * 60 * 60_000)), "day");
}
