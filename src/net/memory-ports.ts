import {
  admit,
  answeredLate,
  type DecisionTime,
  DIED_IN_FLIGHT,
  endAsCounted,
  holdAsCounted,
  type OwnerRule,
  readSomething,
  type SiteFacts,
  timeOf,
} from "../policy/admission.js";
import { LATEST_HOLD_MS, retryAfterDeath } from "../policy/retry.js";
import { admitInput, priorAttempt } from "../store/admit-input.js";
import type {
  Admitted,
  Completion,
  JournalPort,
  SendIntent,
  StoredAnswer,
  WaitAsked,
} from "./journal.js";
import type { ArchivePort, CachedRobots, RequestLogEntry, RobotsCachePort } from "./types.js";

/**
 * In-memory implementations of the fetcher's ports, for unit tests and the night's
 * simulation. They behave like the SQL ones (src/store/*) minus persistence.
 */
interface Row {
  entry: RequestLogEntry;
  key: string;
  holder: string;
  final: boolean;
  closedEarly: boolean;
  retryAt?: number;
  answer?: StoredAnswer;
}

/**
 * The journal in memory: the same decisions as the SQL one (policy/admission), minus
 * persistence. `entries` lists every attempt in the order it started; an attempt in flight
 * shows outcome `in-flight` and no end until it completes.
 */
/**
 * What an answer (a head's wait, a completion) leaves on its site: a Retry-After hold, the later
 * only; and for the night its row was sent in, closed by a no (P21) or down (P15's stricter rule,
 * with the source that found it), never over a later night's (a late answer from a worker frozen
 * past midnight: the later night's word stands; SqlJournal's nightMarks).
 */
function holdSite(
  site: SiteFacts,
  e: RequestLogEntry,
  m: { siteNotBefore?: number; closeSite?: string; downSite?: string },
): void {
  if (m.siteNotBefore !== undefined)
    site.notBefore = Math.max(site.notBefore ?? Number.NEGATIVE_INFINITY, m.siteNotBefore);
  if (e.night === undefined) return;
  if (m.closeSite !== undefined && !laterNight(site.closed?.night, e.night))
    site.closed = { night: e.night, reason: m.closeSite };
  if (m.downSite !== undefined && !laterNight(site.down?.night, e.night))
    site.down = {
      night: e.night,
      reason: m.downSite,
      ...(e.source !== undefined ? { source: e.source } : {}),
    };
}

/** Whether a stored night is later than `night` ('YYYY-MM-DD' compares as text). */
function laterNight(stored: string | undefined, night: string): boolean {
  return stored !== undefined && stored > night;
}

export class MemoryJournal implements JournalPort {
  readonly rows: Row[] = [];
  readonly sites = new Map<string, SiteFacts>();
  readonly rules = new Map<string, OwnerRule[]>();
  readonly #byKey = new Map<string, Row[]>();

  get entries(): RequestLogEntry[] {
    return this.rows.map((r) => r.entry);
  }

  /** Entries for one URL, in the order written. */
  forUrl(url: string): RequestLogEntry[] {
    return this.entries.filter((e) => e.url === url);
  }

  /** The end of the last request to a site (P10), as the SQL site state keeps it. */
  lastEnd(site: string): number | undefined {
    return this.sites.get(site)?.lastEnd;
  }

  async admit(intent: SendIntent, holder: string, at: DecisionTime): Promise<Admitted> {
    const now = timeOf(at);
    const site = this.sites.get(intent.site) ?? {};
    this.sites.set(intent.site, site);
    // P10: an end stamped by a clock running ahead is now, kept so (as SqlJournal writes it).
    // P15, P20: and its hold stamped by the same clock counts from now as long past the end.
    const hold = holdAsCounted(site.notBefore, site.lastEnd, now);
    if (hold !== undefined) site.notBefore = hold;
    const counted = endAsCounted(site.lastEnd, now);
    if (counted !== undefined) site.lastEnd = counted;
    const prior = (this.#byKey.get(`${intent.night} ${intent.key}`) ?? []).filter(
      (r) => r.entry.outcome !== "in-flight",
    );
    const a = admit(
      admitInput(intent, holder, now, {
        site,
        rules: this.rules.get(intent.site) ?? [],
        prior: prior.map((r) =>
          priorAttempt({
            final: r.final,
            closedEarly: r.closedEarly,
            outcome: r.entry.outcome,
            failure: r.entry.failure,
            retryAt: r.retryAt,
          }),
        ),
      }),
    );
    if ((a.kind === "go" || a.kind === "wait") && a.recovered !== undefined) {
      for (const r of this.rows)
        if (
          r.holder === a.recovered &&
          r.entry.site === intent.site &&
          r.entry.outcome === "in-flight"
        ) {
          r.entry.outcome = "interrupted";
          r.entry.failure = DIED_IN_FLIGHT;
          // Its wait (its head's, or a cut send's, P15) counts from now, and holds its site.
          const at = retryAfterDeath(r.retryAt, r.entry.startedAt, r.entry.attempt, now);
          if (at !== undefined) {
            r.retryAt = at;
            if (at < LATEST_HOLD_MS)
              site.notBefore = Math.max(site.notBefore ?? Number.NEGATIVE_INFINITY, at);
          }
        }
      delete site.lease;
      site.lastEnd = Math.max(site.lastEnd ?? now, now);
    }
    if (a.kind !== "go") return a;
    const entry: RequestLogEntry = {
      startedAt: a.startedAt,
      endedAt: null,
      method: intent.method,
      url: intent.url,
      status: null,
      outcome: "in-flight",
      bytes: 0,
      site: intent.site,
      origin: intent.origin,
      purpose: intent.purpose,
      attempt: a.attempt,
      night: intent.night,
      ...(intent.source !== undefined ? { source: intent.source } : {}),
      ...(intent.validatorsSent ? { validatorsSent: { ...intent.validatorsSent } } : {}),
    };
    const row: Row = { entry, key: intent.key, holder, final: false, closedEarly: false };
    this.rows.push(row);
    const k = `${intent.night} ${intent.key}`;
    const list = this.#byKey.get(k);
    if (list) list.push(row);
    else this.#byKey.set(k, [row]);
    site.lease = { holder, until: a.startedAt + 120_000 };
    return { ...a, id: String(this.rows.length - 1), rules: this.#rulesToken(intent.site) };
  }

  async rulesNow(site: string): Promise<string> {
    return this.#rulesToken(site);
  }

  /**
   * The rules in force, as written, and the nights the site was closed and found down: any
   * rule set or cleared, or the site closed or down since, gives another token.
   */
  #rulesToken(site: string): string {
    const s = this.sites.get(site);
    return JSON.stringify([
      this.rules.get(site) ?? [],
      s?.closed?.night ?? "",
      s?.down?.night ?? "",
    ]);
  }

  async waitAsked(id: string, w: WaitAsked): Promise<void> {
    const row = this.rows[Number(id)];
    if (!row || row.entry.endedAt !== null) return;
    // The row only while in flight (one taken over keeps its truth); the site's hold even so.
    if (row.entry.outcome === "in-flight") {
      row.entry.status = w.status;
      if (w.retryAt !== undefined) row.retryAt = w.retryAt;
    }
    const site = this.sites.get(row.entry.site) ?? {};
    this.sites.set(row.entry.site, site);
    holdSite(site, row.entry, w);
  }

  async complete(id: string, holder: string, c: Completion): Promise<boolean> {
    const row = this.rows[Number(id)];
    if (!row) return false;
    const e = row.entry;
    // Compare and set (JournalPort.complete): a row taken over is left as it is; the site
    // still keeps what the site did, the stricter only.
    const written = e.outcome === "in-flight" && row.holder === holder;
    if (written) this.#completeRow(row, c);
    else if (
      row.holder === holder &&
      e.outcome === "interrupted" &&
      e.endedAt === null &&
      readSomething(c)
    )
      this.#answeredLate(row, c);
    const site = this.sites.get(e.site) ?? {};
    this.sites.set(e.site, site);
    // P15: a hold asked by the clock as it is now, over an end stamped while it ran ahead: the
    // end and its hold counted first, as an admission counts them (SqlJournal #countAhead).
    if (c.siteNotBefore !== undefined) {
      const counted = endAsCounted(site.lastEnd, c.endedAt);
      if (counted !== site.lastEnd && counted !== undefined) {
        const hold = holdAsCounted(site.notBefore, site.lastEnd, c.endedAt);
        if (hold !== undefined) site.notBefore = hold;
        site.lastEnd = counted;
      }
    }
    // Never move an end backwards: two processes racing must not shorten the gap (P10).
    site.lastEnd = Math.max(site.lastEnd ?? Number.NEGATIVE_INFINITY, c.endedAt);
    if (site.lease?.holder === holder) delete site.lease;
    holdSite(site, e, c);
    return written;
  }

  #completeRow(row: Row, c: Completion): void {
    const e = row.entry;
    e.endedAt = c.endedAt;
    e.status = c.status;
    e.outcome = c.outcome;
    e.bytes = c.bytes;
    if (c.failure !== undefined) e.failure = c.failure;
    if (c.validatorsReceived) e.validatorsReceived = { ...c.validatorsReceived };
    if (c.evidence) e.evidence = { ...c.evidence };
    row.final = c.final;
    row.closedEarly = c.closedEarly;
    if (c.retryAt !== undefined) row.retryAt = c.retryAt;
    else if (row.retryAt === undefined && c.retryAtIfNone !== undefined)
      row.retryAt = c.retryAtIfNone;
    if (c.answer) row.answer = structuredClone(c.answer);
  }

  /** P27: what the site answered, on a row another took over (SqlJournal's #answeredLate). */
  #answeredLate(row: Row, c: Completion): void {
    const e = row.entry;
    e.endedAt = c.endedAt;
    e.status = c.status;
    e.bytes = c.bytes;
    e.failure = answeredLate(c.outcome, c.failure);
    if (c.validatorsReceived) e.validatorsReceived = { ...c.validatorsReceived };
    else delete e.validatorsReceived;
    if (c.evidence) e.evidence = { ...c.evidence };
    else delete e.evidence;
    const retry = c.retryAt ?? c.retryAtIfNone;
    if (retry !== undefined) row.retryAt = Math.max(row.retryAt ?? retry, retry);
  }

  async answer(night: string, key: string): Promise<StoredAnswer | undefined> {
    const list = this.#byKey.get(`${night} ${key}`) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i];
      if (r?.final) return r.answer;
    }
    return undefined;
  }
}

export class MemoryRobotsCache implements RobotsCachePort {
  readonly entries = new Map<string, CachedRobots>();
  async get(origin: string): Promise<CachedRobots | undefined> {
    const e = this.entries.get(origin);
    return e ? { ...e } : undefined;
  }
  async put(entry: CachedRobots): Promise<void> {
    this.entries.set(entry.origin, { ...entry });
  }
}

type Exchange = Parameters<ArchivePort["write"]>[0];

export class MemoryArchive implements ArchivePort {
  readonly exchanges: Exchange[] = [];
  async write(exchange: Exchange): Promise<void> {
    this.exchanges.push(exchange);
  }
  async bodyOf(q: { url: string; method: string; fetchedAt: number }) {
    const ex = this.exchanges.find(
      (e) =>
        e.request.url === q.url && e.request.method === q.method && e.fetchedAt === q.fetchedAt,
    );
    return ex?.response.body;
  }
}

/** All the ports at once, for tests: `log` is the journal (its `entries` are the attempts). */
export function memoryPorts() {
  const journal = new MemoryJournal();
  return {
    journal,
    log: journal,
    robotsCache: new MemoryRobotsCache(),
    archive: new MemoryArchive(),
  };
}
