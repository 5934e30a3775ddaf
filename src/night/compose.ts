/**
 * The composition root of `nor night`: the store's ports, the real fetcher over undici,
 * the WARC archive (P8), and the scheduler. Kept out of the CLI file so the command stays
 * thin and the wiring is read in one place.
 */
import type { Clock } from "../clock.js";
import { NorError } from "../errors.js";
import type { IdSource } from "../ids.js";
import type { PoliteFetcher } from "../net/fetcher.js";
import type { JournalPort } from "../net/journal.js";
import { leftThisMachine } from "../policy/admission.js";
import { DEFAULT_USER_AGENT } from "../policy/constants.js";
import { isRecheckNight } from "../policy/recheck.js";
import { siteOf } from "../policy/site.js";
import type { Source, WayIn } from "../sources/catalog/types.js";
import { nightUserAgent, recordNightCatalogNote, recordNightUserAgent } from "../store/admin.js";
import { archiveDir, WarcArchive } from "../store/archive/index.js";
import { ArchiveValidators } from "../store/archive/validators.js";
import { type SourceRef, sourceEntries } from "../store/catalog-sources.js";
import type { Store } from "../store/db.js";
import { newHolderId } from "../store/holder.js";
import { SqlJournal } from "../store/journal.js";
import { SqlNightStore } from "../store/night-store.js";
import { storeClock } from "../store/store-clock.js";
import { DurableWindow } from "./durable-window.js";
import { loadWayReader } from "./lazy-reader.js";
import { type NightOptions, type NightProgress, type NightSummary, runNight } from "./run-night.js";
import { type NetOptions, storeFetcher } from "./store-fetcher.js";

export interface NightRunOptions extends NetOptions {
  night: string;
  deadlineMs: number;
  /** P13: the command's start, from which a new night's deadline counts (NightOptions). */
  deadlineFrom?: number;
  concurrency: number;
  /** P20, P23: a page that always answers, asked before the night (`nor night --canary`). */
  canary?: string;
  /** A person's stop: see NightOptions.stop (run-night.ts). */
  stop?: AbortSignal;
  /** The night as the store opened it: see NightOptions.onOpened (run-night.ts). */
  onOpened?: NightOptions["onOpened"];
  /** The data directory: the archive lives in DIR/archive (P8). */
  dataDir?: string;
  /** This host's clock (passed in by the command, never read here); see storeClock below. */
  clock: Clock;
  /** WARC record ids and this process's lease holder name. */
  ids: IdSource;
  onProgress?(p: NightProgress & { requests: number }): void;
  /** A source's check threw, or its result could not be stored: its `error` outcome's cause, for the log. */
  onSourceError?(sourceId: string, err: unknown): void;
  /** What the archive tells the operator on opening (a WARC file cut short), for the log. */
  onArchiveNote?(note: string): void;
  /**
   * How this process runs without its catalog files, and why (`nor night --or-stored-catalog`):
   * kept on the night once it is open, for `nor status` and the console (admin.ts
   * recordNightCatalogNote).
   */
  catalogNote?: string;
  /**
   * Once the night is open and its plan made, before anything is asked: whether this run starts
   * or resumes work on it (`works`: NightDeps.makeFetcher), and when it had finished, if it had.
   */
  onPlanned?(plan: { works: boolean; finishedAt?: number }): void;
}

/**
 * Runs the night over the store's sources in use (`sources`: after the catalog's import, exactly
 * the catalog's), each with its whole entry as the import stored it.
 */
export async function runNightWithStore(
  store: Store,
  sources: readonly SourceRef[],
  opts: NightRunOptions,
): Promise<NightSummary> {
  const { ids } = opts;
  const db = store.db;
  // P1, P2: a night begun under another User-Agent is refused before anything of it is touched
  // (its row reopened, its archive opened); the claim below decides between processes racing.
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const begunAs = await nightUserAgent(db, opts.night);
  if (begunAs !== undefined && begunAs !== userAgent)
    throw anotherUserAgent(opts.night, begunAs, userAgent);
  const load = async (of: readonly string[]): Promise<Source[]> =>
    (await sourceEntries(db, of)).map((r) => JSON.parse(r.entry) as Source);
  // P9, P10 across machines: on PostgreSQL every host reads the database server's time (the
  // host's clock it is given, corrected by its offset from the server's).
  const clock = store.dialect === "postgres" ? await storeClock(db, opts.clock) : opts.clock;
  // Its waits after a lost PostgreSQL connection are slept on the night's clock.
  const sqlJournal = new SqlJournal(db, clock);
  // The requests this process sent so far (its progress, its line for each source), by the
  // night summary's rule (leftThisMachine): counted when admitted, a row then completed as never
  // sent or refused by the address check (P3) taken back off. A row another process took over
  // meanwhile (its completion not written) stays counted, as the summary counts it (interrupted).
  let requests = 0;
  const durable = new DurableWindow();
  const journal: JournalPort = {
    admit: async (intent, holder, now) => {
      const a = await sqlJournal.admit(intent, holder, now);
      if (a.kind === "go") requests++;
      return a;
    },
    complete: async (id, holder, c) => {
      const written = await sqlJournal.complete(id, holder, c);
      if (written && !leftThisMachine(c)) requests--;
      // A completion refused (the row another process's now) made nothing durable to time.
      if (written) durable.completed(c, clock.now());
      return written;
    },
    waitAsked: (id, w) => sqlJournal.waitAsked(id, w),
    answer: (night, key) => sqlJournal.answer(night, key),
    rulesNow: (site) => sqlJournal.rulesNow(site),
  };
  const archive =
    opts.dataDir !== undefined
      ? await WarcArchive.open(archiveDir(opts.dataDir), {
          db,
          clock,
          ids,
          // Capture rows join the journal's commits (one fsync fewer an archive batch).
          group: sqlJournal.group,
          ...(opts.onArchiveNote ? { note: opts.onArchiveNote } : {}),
        })
      : undefined;
  const nightStore = new SqlNightStore(db, sqlJournal.group);
  const copies = archive ? new ArchiveValidators(db, archive.dir) : undefined;
  const holder = newHolderId(() => ids.uuid().slice(0, 8));
  let fetcher: PoliteFetcher | undefined;
  try {
    const summary = await runNight(
      { list: sources, load },
      {
        store: nightStore,
        clock,
        reader: await loadWayReader(await waysOf(sources, load)),
        // P8/P12: validators and 304 answers come from the archive when there is one.
        validators: copies ?? nightStore,
        siteOf,
        isRecheckNight,
        holder,
        heartbeat: (everyMs, beat) => {
          const t = setInterval(() => void beat().catch(() => {}), everyMs);
          t.unref();
          return () => clearInterval(t);
        },
        makeFetcher: async (state, plan) => {
          // Rows a killed process left in flight are marked interrupted; their sites' leases
          // are taken over at the next request, with the gap counted from then (P10).
          await sqlJournal.sweep(clock.now());
          // P1, P2: the User-Agent tonight's requests carry, for the site-owners page to show;
          // a process that would introduce itself otherwise than the night already does (a
          // worker on another machine, a resume after the contact was changed) sends nothing.
          const other = await recordNightUserAgent(db, opts.night, userAgent);
          if (other !== undefined) throw anotherUserAgent(opts.night, other, userAgent);
          // Only a run that starts or resumes work on the night says how it ran: a finished
          // night run again with nothing left to do keeps its history as it was.
          if (opts.catalogNote !== undefined && plan.works)
            await recordNightCatalogNote(db, opts.night, opts.catalogNote);
          opts.onPlanned?.({
            works: plan.works,
            ...(state.finishedAt !== undefined ? { finishedAt: state.finishedAt } : {}),
          });
          fetcher = storeFetcher({
            db,
            clock,
            ids,
            net: opts,
            journal,
            group: sqlJournal.group,
            ...(archive ? { archive } : {}),
            deadline: state.deadlineAt,
            night: opts.night,
            holder,
          });
          return fetcher;
        },
        onSourceDone: (p) => opts.onProgress?.({ ...p, requests }),
        ...(opts.onSourceError ? { onSourceError: opts.onSourceError } : {}),
      },
      {
        night: opts.night,
        deadlineMs: opts.deadlineMs,
        ...(opts.deadlineFrom !== undefined ? { deadlineFrom: opts.deadlineFrom } : {}),
        concurrency: opts.concurrency,
        ...(opts.canary !== undefined ? { canary: opts.canary } : {}),
        ...(opts.stop !== undefined ? { stop: opts.stop } : {}),
        ...(opts.onOpened !== undefined ? { onOpened: opts.onOpened } : {}),
      },
    );
    // Past the deadline no admission comes to take a dead worker's site over: its rows are
    // marked interrupted here, once its lease has run out (P27).
    await sqlJournal.sweep(clock.now());
    const window = durable.summary();
    return window ? { ...summary, durableMs: window } : summary;
  } finally {
    await fetcher?.close();
    await copies?.close();
    await archive?.close();
  }
}

/** Sources read a batch at a time to see which ways the night reads. */
const WAYS_BATCH = 500;

/**
 * One way of each kind (platform, or else access) the sources hold, read a batch at a time:
 * what the night's reader needs loaded (lazy-reader.ts), without holding every entry.
 */
async function waysOf(
  list: readonly { id: string }[],
  load: (ids: readonly string[]) => Promise<Source[]>,
): Promise<(WayIn & { alternates: WayIn[] })[]> {
  const kinds = new Map<string, WayIn>();
  for (let i = 0; i < list.length; i += WAYS_BATCH) {
    for (const s of await load(list.slice(i, i + WAYS_BATCH).map((x) => x.id))) {
      for (const { access, platform, url } of [s, ...s.alternates]) {
        const key = platform !== undefined ? `platform ${platform}` : access;
        if (!kinds.has(key)) kinds.set(key, { access, url, ...(platform ? { platform } : {}) });
      }
    }
  }
  return [...kinds.values()].map((w) => ({ ...w, alternates: [] }));
}

/** A night's refusal of a process that would introduce itself otherwise than it began (P1). */
function anotherUserAgent(night: string, other: string, userAgent: string): NorError {
  return new NorError(
    "E_CONFIG",
    `night ${night} already introduces itself as "${other}" (its requests so far carried it), not as "${userAgent}": a night keeps one User-Agent (P1), so the site-owners page names the contact every request carried (P2). Run this night with --user-agent "${other}" (or NOR_USER_AGENT), and the new one from the next night on`,
  );
}
