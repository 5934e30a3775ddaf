/**
 * An in-memory NightStore and ValidatorStore for the simulation and unit tests: the same
 * contract as the kysely store (`SqlNightStore` in
 * `store/night-store.ts`), kept in Maps.
 */

import { isSiteDown, SITE_WAIT } from "../policy/admission.js";
import { HISTORY_NIGHTS, LANE_LEASE_MS } from "../policy/constants.js";
import {
  EMPTY_READ_OUTCOME,
  listAddress,
  READ_HORIZON_NIGHTS,
  READ_OUTCOMES,
} from "../policy/first-read.js";
import { linkFamily, movedMayBe, ofFamily, pairMoved, pickTwin } from "../policy/link-twins.js";
import { addDays } from "../policy/night-date.js";
import {
  type FirstPageRow,
  idsReadAnew,
  lookOf,
  newOnSwitchedList,
  pairAcrossWays,
  shownAsHeld,
  showsAnyOf,
} from "../policy/way-identity.js";
import type { ExtractedRecord } from "../sources/record.js";
import { holderDead } from "../store/holder.js";
import { closedUnasked } from "./outcome.js";
import type {
  CatalogRow,
  Committed,
  LaneState,
  NightState,
  NightStore,
  SourceNow,
  TonightHistory,
  TonightOutcome,
} from "./ports.js";
import type { KnownPageRead, PageRead, ValidatorStore } from "./reader.js";
import {
  type BackfillState,
  FLAGS_TOLD_BY_DETAIL,
  type Moved,
  type NightOutcome,
  NOT_ASKED_OUTCOMES,
  NOT_CHECKED_OUTCOMES,
  NOT_JUDGED_OUTCOMES,
  type OverflowPending,
  type SourceResult,
  type WayChoice,
} from "./types.js";

const READ: ReadonlySet<string> = new Set(READ_OUTCOMES);

interface StoredOutcome {
  night: string;
  outcome: NightOutcome;
  way?: WayChoice;
  /** The reader that read the list (SourceResult.reader). */
  reader?: string;
  endedAt: number;
  durationMs: number;
  recordsFound: number;
  newRecords: number;
}

export class MemoryNightStore implements NightStore, ValidatorStore {
  readonly nights = new Map<
    string,
    { startedAt: number; deadlineAt: number; finishedAt?: number }
  >();
  readonly sources = new Map<string, CatalogRow>();
  /** source id -> outcomes, oldest first. */
  readonly outcomes = new Map<string, StoredOutcome[]>();
  /** source id -> record id -> record and first night. */
  readonly records = new Map<
    string,
    Map<string, { record: ExtractedRecord; firstNight: string; listed?: true }>
  >();
  readonly marks = new Map<string, { reading: boolean; night: string; reason?: string }>();
  readonly flags: { source: string; kind: string; night: string; detail: string; open: boolean }[] =
    [];
  readonly validators = new Map<string, { etag?: string; lastModified?: string }>();
  readonly backfill = new Map<string, BackfillState>();
  /** P11: each source's catalog URLs that moved permanently, by the catalog URL. */
  readonly moves = new Map<string, Map<string, Moved>>();
  /** P7: each source's overflow left unfinished (night/types.ts OverflowPending). */
  readonly overflow = new Map<string, OverflowPending>();
  /**
   * Source -> its first pages as last read in full, by URL (their records are in `records`). By
   * source, so a commit looks through its own source's pages only (a map by `source url` made
   * each commit spread every source's: a simulated night of 30,000 sources spent 60% of its CPU
   * there).
   */
  readonly pageReads = new Map<string, Map<string, PageRead & { night: string }>>();

  readonly lanes = new Map<string, { holder: string; until: number; done: boolean }>();

  async claimLane(night: string, site: string, holder: string, now: number): Promise<boolean> {
    const key = `${night} ${site}`;
    const l = this.lanes.get(key);
    if (l && !l.done && l.holder !== holder && !holderDead(l, now)) return false;
    this.lanes.set(key, { holder, until: now + LANE_LEASE_MS, done: false });
    return true;
  }

  async claimLanes(
    night: string,
    sites: readonly string[],
    holder: string,
    now: number,
  ): Promise<Set<string>> {
    const claimed = new Set<string>();
    for (const site of sites) if (await this.claimLane(night, site, holder, now)) claimed.add(site);
    return claimed;
  }

  async laneStates(night: string, now: number): Promise<Map<string, LaneState>> {
    const out = new Map<string, LaneState>();
    for (const [k, l] of this.lanes) {
      if (!k.startsWith(`${night} `)) continue;
      out.set(k.slice(night.length + 1), l.done ? "done" : holderDead(l, now) ? "free" : "held");
    }
    return out;
  }

  async finishLane(night: string, site: string, holder: string, now: number): Promise<void> {
    // Only its holder finishes a lane: one taken over since is the new holder's to finish.
    const l = this.lanes.get(`${night} ${site}`);
    if (l === undefined || l.holder !== holder) return;
    this.lanes.set(`${night} ${site}`, { holder, until: now, done: true });
  }

  async renewLanes(night: string, holder: string, now: number): Promise<void> {
    for (const [k, l] of this.lanes)
      if (k.startsWith(`${night} `) && l.holder === holder && !l.done)
        l.until = now + LANE_LEASE_MS;
  }

  async isDone(night: string, sourceId: string): Promise<boolean> {
    return (this.outcomes.get(sourceId) ?? []).some(
      (o) => o.night === night && o.outcome.kind !== "checker-offline",
    );
  }

  async sourceNow(night: string, sourceId: string): Promise<SourceNow> {
    const mark = this.marks.get(sourceId);
    const out: SourceNow = {
      done: await this.isDone(night, sourceId),
      reading: mark?.reading ?? true,
    };
    if (mark && !mark.reading) out.markedNight = mark.night;
    return out;
  }

  async openNight(night: string, now: number, deadlineAt: number): Promise<NightState> {
    const had = this.nights.get(night);
    if (had) {
      const state: NightState = {
        night,
        startedAt: had.startedAt,
        deadlineAt: had.deadlineAt,
        resumed: true,
      };
      if (had.finishedAt !== undefined) state.finishedAt = had.finishedAt;
      delete had.finishedAt;
      return state;
    }
    this.nights.set(night, { startedAt: now, deadlineAt });
    return { night, startedAt: now, deadlineAt, resumed: false };
  }

  async syncSources(rows: readonly CatalogRow[]): Promise<void> {
    for (const r of rows) this.sources.set(r.id, { ...r });
  }

  /** P24: a person's mark (the CLI's `nor mark` writes the same thing to the real store). */
  mark(source: string, reading: boolean, night: string, reason?: string): void {
    // P25: marked not read again (another reason), it stays not read since its first mark.
    const was = this.marks.get(source);
    const since = !reading && was !== undefined && !was.reading ? was.night : night;
    const m: { reading: boolean; night: string; reason?: string } = { reading, night: since };
    if (reason !== undefined) m.reason = reason;
    this.marks.set(source, m);
  }

  async histories(night: string, ids: readonly string[]): Promise<Map<string, TonightHistory>> {
    const out = new Map<string, TonightHistory>();
    for (const id of ids) {
      const all = this.outcomes.get(id) ?? [];
      const earlier = all.filter((o) => o.night !== night);
      const last = earlier[earlier.length - 1];
      const mark = this.marks.get(id);
      const h: TonightHistory = {
        reading: mark?.reading ?? true,
        // P20, P23: checker-offline tonight judged nothing: checked again on resume.
        doneTonight: all.some((o) => o.night === night && o.outcome.kind !== "checker-offline"),
        // P13, P21: a source its site's no earlier that night kept from being asked, too.
        unreachedLast:
          last !== undefined &&
          (NOT_CHECKED_OUTCOMES.has(last.outcome.kind) ||
            closedUnasked(
              last.outcome.kind,
              last.outcome.reason,
              last.outcome.url,
              last.way?.used?.url,
            )),
        recentOutcomes: earlier.map((o) => o.outcome.kind).reverse(),
        recordsKnown: this.records.get(id)?.size ?? 0,
      };
      if (mark && !mark.reading) h.markedNight = mark.night;
      if (
        last !== undefined &&
        closedUnasked(last.outcome.kind, last.outcome.reason, last.outcome.url, last.way?.used?.url)
      )
        h.closedLast = true;
      // P25, P13: the latest nights running not reached for want of time, as the SQL store reads.
      let run = 0;
      for (let i = earlier.length - 1; i >= 0; i--) {
        const o = earlier[i]?.outcome;
        if (o?.kind !== "unreached") break;
        if (!isSiteDown(o.reason) && !o.reason?.startsWith(SITE_WAIT)) run++;
        else break;
      }
      if (run > 0) h.unreachedRun = run;
      const lastJudged = earlier.filter((o) => !NOT_JUDGED_OUTCOMES.has(o.outcome.kind)).pop();
      // When it was last asked, and how long that took: not a night its site's no kept it from.
      const lastChecked = earlier
        .filter(
          (o) =>
            !NOT_JUDGED_OUTCOMES.has(o.outcome.kind) &&
            !closedUnasked(o.outcome.kind, o.outcome.reason, o.outcome.url, o.way?.used?.url),
        )
        .pop();
      if (lastChecked) h.lastCheckedAt = lastChecked.endedAt;
      if (lastChecked) h.lastDurationMs = lastChecked.durationMs;
      // P25, P9: where a source marked not read last ended a judged check (its recheck's lane).
      const endUrl = lastJudged?.outcome.url;
      const endAsked = lastJudged?.way?.used?.url;
      if (!h.reading && endUrl !== undefined && endAsked !== undefined)
        h.lastEnd = { url: endUrl, asked: endAsked };
      // P25, P13: the latest night it was reached, as the SQL store reads it (its HISTORY_NIGHTS).
      const since = addDays(night, -HISTORY_NIGHTS);
      for (const o of earlier)
        if (
          !NOT_ASKED_OUTCOMES.has(o.outcome.kind) &&
          o.night >= since &&
          o.night < night &&
          (h.lastReachedNight === undefined || o.night > h.lastReachedNight)
        )
          h.lastReachedNight = o.night;
      const bf = this.backfill.get(id);
      if (bf) h.backfill = bf;
      const moved = this.moves.get(id);
      if (moved && moved.size > 0)
        h.moved = [...moved.values()].sort((a, b) => (a.from < b.from ? -1 : 1));
      const pending = this.overflow.get(id);
      if (pending) h.overflow = pending;
      out.set(id, h);
    }
    return out;
  }

  async commit(night: string, r: SourceResult): Promise<Committed> {
    const had = this.outcomes.get(r.sourceId);
    if (had?.some((o) => o.night === night && o.outcome.kind === "checker-offline"))
      this.outcomes.set(
        r.sourceId,
        had.filter((o) => !(o.night === night && o.outcome.kind === "checker-offline")),
      );
    if (this.outcomes.get(r.sourceId)?.some((o) => o.night === night))
      return { newRecords: 0, already: true };
    const known = this.records.get(r.sourceId) ?? new Map();
    this.records.set(r.sourceId, known);
    // As the SQL store (night-records.ts): the source's first read, and a backfill's older
    // pages (P7), list records already listed, never new on record.
    const address = listAddress(r);
    const since = addDays(night, -READ_HORIZON_NIGHTS);
    const readNights = (this.outcomes.get(r.sourceId) ?? [])
      .filter(
        (o) =>
          o.night !== night &&
          o.night >= since &&
          (READ.has(o.outcome.kind) ||
            o.recordsFound > 0 ||
            (o.outcome.kind === EMPTY_READ_OUTCOME &&
              o.reader !== undefined &&
              o.reader === r.reader)) &&
          address !== undefined &&
          listAddress(o) === address,
      )
      .map((o) => o.night)
      .sort();
    const lastReadNight = readNights[readNights.length - 1];
    const firstRead = lastReadNight === undefined;
    const current =
      r.olderFrom !== undefined ? new Set(r.records.slice(0, r.olderFrom).map((x) => x.id)) : null;
    // A 304's page (its copy read again): what it shows was there (night-records.ts).
    const unchanged = r.outcome.kind === "unchanged";
    // P7, P8: a first page answered 304 read from its copy before next pages read in full.
    const copied = new Set(r.records.slice(0, r.copied ?? 0).map((x) => x.id));
    let newRecords = 0;
    let alreadyListed = 0;
    for (const rec of r.records) {
      // Seen before: brought up to date with the list as it reads now, not new again (as the
      // SQL store's upsert, night-records.ts).
      const had = known.get(rec.id);
      if (had) {
        had.record = rec;
        continue;
      }
      const listed =
        firstRead || unchanged || copied.has(rec.id) || (current !== null && !current.has(rec.id));
      known.set(rec.id, { record: rec, firstNight: night, ...(listed ? { listed } : {}) });
      if (listed) alreadyListed++;
      else newRecords++;
    }
    // Ids first seen tonight (night-records.ts `fresh`), before any is found to be a stored one.
    const firstSeen = newRecords + alreadyListed;
    // As night-records.ts `relink`: a new id that is a stored record's link written another way,
    // or its shared link's id as the row's sharing changed, no longer listed so, is that record.
    const tonight = new Set(r.records.map((x) => x.id));
    // The stored record `old` takes the new id: its first night and mark kept, not new again.
    const take = (id: string, old: string) => {
      const mine = known.get(id) as { record: ExtractedRecord; listed?: true };
      const was = known.get(old) as { firstNight: string; listed?: true };
      known.delete(old);
      // As night-records.ts `appearedSince`: listed by another way's first read since this
      // way's last read, which did not show it: new tonight.
      if (
        !mine.listed &&
        was.listed &&
        lastReadNight !== undefined &&
        was.firstNight > lastReadNight
      )
        return;
      known.set(id, {
        record: mine.record,
        firstNight: was.firstNight,
        ...(was.listed ? { listed: true as const } : {}),
      });
      if (mine.listed) alreadyListed--;
      else newRecords--;
    };
    for (const rec of r.records) {
      const mine = known.get(rec.id);
      if (!mine || mine.firstNight !== night || firstRead) continue;
      const family = linkFamily(rec.id);
      if (family === undefined) continue;
      const candidates = [...known]
        .filter(([id, k]) => !tonight.has(id) && k.firstNight !== night && ofFamily(id, family))
        .map(([id, k]) => ({ id, title: k.record.title, date: k.record.date ?? null }));
      const old = pickTwin(rec.id, { title: rec.title, date: rec.date ?? null }, candidates)?.id;
      if (old !== undefined) take(rec.id, old);
    }
    // Files moved (as night-records.ts `relink`): the page's records at its last read in full,
    // no longer shown, found under new links with their titles and dates (pairMoved).
    // Kept by the address that answered; else the newest kept (a list now redirected).
    const lastRead =
      r.pageRead &&
      (this.pageReads.get(r.sourceId)?.get(r.pageRead.url) ??
        [...(this.pageReads.get(r.sourceId)?.values() ?? [])].sort((a, b) =>
          a.night < b.night ? 1 : -1,
        )[0]);
    if (movedMayBe(night, lastReadNight) && lastRead) {
      const firstPage = [
        ...new Map(
          r.records.slice(0, r.olderFrom ?? r.records.length).map((x) => [x.id, x]),
        ).values(),
      ];
      const rest = firstPage
        .filter((x) => known.get(x.id)?.firstNight === night && x.date && linkFamily(x.id))
        .map((x) => ({ id: x.id, title: x.title, date: x.date ?? null }));
      const links = lastRead.ids.filter((id) => linkFamily(id) !== undefined);
      const gone = links.flatMap((id) => {
        const k = known.get(id);
        return k && !tonight.has(id)
          ? [{ id, title: k.record.title, date: k.record.date ?? null }]
          : [];
      });
      const still = links.filter((id) => tonight.has(id)).length;
      const shown = firstPage.map((x) => ({ title: x.title, date: x.date ?? null }));
      for (const [id, old] of pairMoved(rest, shown, gone, links.length, still)) take(id, old.id);
    }
    // As night-records.ts `acrossWays`: tonight's list read through another way in than the
    // source's last read one: a record first seen tonight may be a stored one the other way read.
    const lastAny = (this.outcomes.get(r.sourceId) ?? [])
      .filter((o) => o.night < night && (READ.has(o.outcome.kind) || o.recordsFound > 0))
      .sort((a, b) => (a.night < b.night ? -1 : 1))
      .pop();
    const otherAddress = lastAny && listAddress(lastAny);
    // Or with another reader at the same address (a recipe changed: night-records.ts).
    // Only when it reads the list under other ids: most of tonight's records first seen tonight.
    const otherReader =
      lastAny?.reader !== undefined &&
      r.reader !== undefined &&
      lastAny.reader !== r.reader &&
      idsReadAnew(firstSeen, tonight.size);
    if (
      lastAny &&
      address !== undefined &&
      otherAddress &&
      (otherAddress !== address || otherReader)
    ) {
      const row = (id: string, x: ExtractedRecord) => ({
        id,
        title: x.title,
        date: x.date ?? null,
        url: x.url ?? null,
      });
      const unique = [...new Map(r.records.map((x) => [x.id, x]))];
      const fresh = unique.filter(([id]) => known.get(id)?.firstNight === night);
      const candidates = [...known]
        .filter(([id, k]) => !tonight.has(id) && k.firstNight !== night)
        .map(([id, k]) => row(id, k.record));
      const pairs = pairAcrossWays(
        fresh.map(([id, x]) => row(id, x)),
        unique.map(([id, x]) => row(id, x)),
        candidates,
        // By title alone: the records the list showed at its last read in full, where kept and
        // it showed any (a read of none says nothing of the list: night-records.ts).
        otherAddress !== address
          ? false
          : lastRead && lastRead.ids.length > 0
            ? new Set(lastRead.ids)
            : true,
      );
      for (const [id, old] of pairs) take(id, old.id);
      if (firstRead && !unchanged && lastAny.night >= since) {
        const firstPage = new Map<string, FirstPageRow>();
        for (const x of r.records.slice(0, r.olderFrom ?? r.records.length)) {
          if (firstPage.has(x.id)) continue;
          const k = known.get(x.id);
          const unheld = k?.firstNight === night && k.listed === true;
          firstPage.set(x.id, { id: x.id, date: x.date ?? null, held: !unheld });
        }
        for (const id of newOnSwitchedList([...firstPage.values()])) {
          const k = known.get(id) as { record: ExtractedRecord; firstNight: string; listed?: true };
          delete k.listed;
          alreadyListed--;
          newRecords++;
        }
      }
    }
    const list = this.outcomes.get(r.sourceId) ?? [];
    const stored: StoredOutcome = {
      night,
      outcome: r.outcome,
      endedAt: r.endedAt,
      durationMs: r.endedAt - r.startedAt,
      recordsFound: r.records.length + (r.knownRecords ?? 0),
      newRecords,
    };
    if (r.way) stored.way = r.way;
    if (r.reader !== undefined) stored.reader = r.reader;
    list.push(stored);
    this.outcomes.set(r.sourceId, list);
    for (const v of r.validators) this.validators.set(v.url, v);
    // As the SQL store: the night a backfill ended is the night that committed its end.
    if (r.backfill)
      this.backfill.set(
        r.sourceId,
        r.backfill.ended
          ? {
              ...r.backfill,
              ended: { ...r.backfill.ended, night: r.backfill.ended.night ?? night },
            }
          : r.backfill,
      );
    if (r.pageRead) {
      const reads = this.pageReads.get(r.sourceId) ?? new Map();
      this.pageReads.set(r.sourceId, reads);
      reads.set(r.pageRead.url, { ...r.pageRead, ids: [...r.pageRead.ids], night });
    }
    // P11: as the SQL store, a move remembered or forgotten with the night it was seen.
    for (const m of r.moves ?? []) {
      const mine = this.moves.get(r.sourceId) ?? new Map<string, Moved>();
      this.moves.set(r.sourceId, mine);
      if (m.kind === "forget") mine.delete(m.from);
      else mine.set(m.from, { from: m.from, to: m.to, night });
    }
    // P7: as the SQL store, an overflow left unfinished kept (in place of the one before) or done.
    if (r.overflow && "done" in r.overflow) this.overflow.delete(r.sourceId);
    else if (r.overflow) this.overflow.set(r.sourceId, structuredClone(r.overflow.pending));
    for (const f of r.flags) {
      const open = this.flags.some(
        (x) =>
          x.open &&
          x.source === r.sourceId &&
          x.kind === f.kind &&
          (!FLAGS_TOLD_BY_DETAIL.has(f.kind) || x.detail === f.detail),
      );
      if (!open)
        this.flags.push({ source: r.sourceId, kind: f.kind, night, detail: f.detail, open: true });
    }
    return alreadyListed > 0 ? { newRecords, alreadyListed } : { newRecords };
  }

  async pageRead(sourceId: string, url: string): Promise<KnownPageRead | undefined> {
    const read = this.pageReads.get(sourceId)?.get(url);
    if (!read) return undefined;
    const held = this.records.get(sourceId);
    const allStored = read.ids.every((id) => held?.has(id) === true);
    return { url: read.url, key: read.key, records: read.records, allStored };
  }

  async holdsAny(sourceId: string, ids: readonly string[], before?: string): Promise<boolean> {
    const held = this.records.get(sourceId);
    return ids.some((id) => {
      const h = held?.get(id);
      return h !== undefined && (before === undefined || h.firstNight < before);
    });
  }

  async holdsLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean> {
    return showsAnyOf(records.map(lookOf), this.#heldRows(sourceId, before));
  }

  async heldLike(
    sourceId: string,
    records: readonly { title: string; date?: string; url?: string }[],
    before?: string,
  ): Promise<boolean[]> {
    return shownAsHeld(records.map(lookOf), this.#heldRows(sourceId, before), true);
  }

  #heldRows(sourceId: string, before?: string) {
    return [...(this.records.get(sourceId)?.values() ?? [])]
      .filter((h) => before === undefined || h.firstNight < before)
      .map((h) => lookOf(h.record));
  }

  async closedSites(night: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [id, list] of this.outcomes) {
      const site = this.sources.get(id)?.site;
      const no = list.find((o) => o.night === night && o.outcome.kind === "refused");
      if (site && no && !out.has(site)) out.set(site, no.outcome.reason ?? "");
    }
    return out;
  }

  async finishNight(night: string, now: number): Promise<void> {
    const n = this.nights.get(night);
    if (n) n.finishedAt = now;
  }

  async tonightsOutcomes(night: string): Promise<TonightOutcome[]> {
    const all: (TonightOutcome & { endedAt: number })[] = [];
    for (const [sourceId, list] of this.outcomes)
      for (const o of list)
        if (o.night === night)
          all.push({
            sourceId,
            kind: o.outcome.kind,
            reason: o.outcome.reason ?? null,
            status: o.outcome.status ?? null,
            endedAt: o.endedAt,
          });
    return all.sort((a, b) => a.endedAt - b.endedAt).map(({ endedAt: _e, ...o }) => o);
  }

  async relabelCheckerOffline(night: string, ids: readonly string[], note: string): Promise<void> {
    for (const id of ids) {
      const o = this.outcomes.get(id)?.find((x) => x.night === night);
      if (!o || !["unreachable", "robots-unavailable", "recheck-still-no"].includes(o.outcome.kind))
        continue;
      const was = o.outcome;
      o.outcome = {
        kind: "checker-offline",
        reason: was.reason ? `${note} (${was.kind}: ${was.reason})` : note,
      };
      if (was.url !== undefined) o.outcome.url = was.url;
      for (let i = this.flags.length - 1; i >= 0; i--) {
        const f = this.flags[i];
        if (f && f.source === id && f.night === night) this.flags.splice(i, 1);
      }
    }
  }

  async get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined> {
    const v = this.validators.get(url);
    if (!v) return undefined;
    const out: { etag?: string; lastModified?: string } = {};
    if (v.etag) out.etag = v.etag;
    if (v.lastModified) out.lastModified = v.lastModified;
    return out;
  }

  outcomeOf(source: string, night: string): NightOutcome | undefined {
    return this.outcomes.get(source)?.find((o) => o.night === night)?.outcome;
  }

  wayOf(source: string, night: string): WayChoice | undefined {
    return this.outcomes.get(source)?.find((o) => o.night === night)?.way;
  }
}
