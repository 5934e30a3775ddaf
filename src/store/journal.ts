/**
 * The request journal over kysely (SQLite or PostgreSQL, same code): see net/journal.ts. Each
 * admission and each completion runs in a write transaction that has committed before the
 * caller hears back, so the row of a request is durable before it is sent (synchronous=FULL on
 * SQLite) and every decision to send is read from what every process has committed. Writes
 * arriving together share one transaction (group commit, see group-commit.ts).
 */

import type { ExpressionBuilder, RawBuilder } from "kysely";
import { type Clock, systemClock } from "../clock.js";
import type {
  Admitted,
  Completion,
  JournalPort,
  SendIntent,
  StoredAnswer,
  WaitAsked,
} from "../net/journal.js";
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
import { REQUEST_LEASE_MS } from "../policy/constants.js";
import { LATEST_HOLD_MS, retryAfterDeath } from "../policy/retry.js";
import { admitInput, priorAttempt } from "./admit-input.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { GroupCommit } from "./group-commit.js";
import { holderDead, madeHere } from "./holder.js";
import { heldElsewhere, livenessOf } from "./holder-liveness.js";
import { fromIso, toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { chunks } from "./night-records.js";
import { type Placeholder, prepared } from "./prepared.js";
import type { Database } from "./schema/index.js";
import { connectionLost, LOSS_PAUSES_MS, type Tx, writeTxnRetried } from "./write-txn.js";

export { REQUEST_LEASE_MS };

export class SqlJournal implements JournalPort {
  readonly #db: Db;
  readonly #pg: boolean;
  /** What the pauses after a lost PostgreSQL connection are slept on (askedAgainOnLoss). */
  readonly #clock: Clock;
  /** Admissions and completions arriving together share one transaction (one fsync). */
  readonly group: GroupCommit;

  /**
   * `clock`: what the journal's waits are slept on, the caller's (a night's own); the system's
   * by default. Its time is never read here: each admission and completion is given its own.
   */
  constructor(db: Db, clock: Clock = systemClock) {
    this.#db = db;
    this.#pg = dialectOf(db) === "postgres";
    this.#clock = clock;
    this.group = new GroupCommit(db, clock);
  }

  async admit(intent: SendIntent, holder: string, at: DecisionTime): Promise<Admitted> {
    // PostgreSQL: a holder this process made says it lives (holder-liveness.ts) before its
    // first lease is taken, so no other machine takes its site over while it lives (P9, P10).
    const liveness = this.#pg && madeHere(holder) ? livenessOf(this.#db) : undefined;
    if (liveness !== undefined) await liveness.hold(holder);
    return this.group.run(async (tx) => {
      // The time is read once the write lock is held: the decision is taken at that moment.
      const now = timeOf(at);
      // The site's row, locked, with whether any owner's rule or earlier attempt of this
      // request tonight exists: those are read only when they do (one round trip for most).
      const { site, hasRules, hasPrior, rulesToken } = await this.#siteFacts(tx, intent, now);
      // P10: an end stamped by a clock running ahead is now (admission.ts endAsCounted), written
      // so: the gap this admission counts from now is not counted again from a later now. Only
      // on SQLite, whose processes share one host's clock: on PostgreSQL another process's
      // reading of the server's time may be ahead of this one's, and this now written over the
      // site's end lets it send with no gap (AdmitInput.endAheadIsNow); the end holds there.
      // P15, P20: its hold (a Retry-After) stamped by the same clock counts as long past the end
      // as written, from now (admission.ts holdAsCounted), written with it.
      const counted = this.#pg ? site.lastEnd : endAsCounted(site.lastEnd, now);
      if (counted !== site.lastEnd && counted !== undefined) {
        const hold = holdAsCounted(site.notBefore, site.lastEnd, now);
        await writeCounted(tx, intent.site, counted, hold, now);
        site.lastEnd = counted;
        if (hold !== undefined) site.notBefore = hold;
      }
      // Another's lease this host would call dead (run out, its process gone): on PostgreSQL
      // its holder lives while its liveness lock is held (a process frozen mid-request).
      const lease = site.lease;
      const living =
        this.#pg && lease !== undefined && lease.holder !== holder && holderDead(lease, now)
          ? await heldElsewhere(tx, [lease.holder])
          : undefined;
      const rules = hasRules ? await ownerRules(tx, intent.site) : [];
      const priorRows = hasPrior
        ? await tx
            .selectFrom("request_log")
            .select(["final", "retry_at", "closed_early", "outcome", "failure"])
            .where("night", "=", intent.night)
            .where("request_key", "=", intent.key)
            .where("outcome", "!=", "in-flight")
            .execute()
        : [];
      const input = admitInput(
        intent,
        holder,
        now,
        {
          site,
          rules,
          prior: priorRows.map((r) =>
            priorAttempt({
              final: Number(r.final) === 1,
              closedEarly: Number(r.closed_early) === 1,
              outcome: r.outcome,
              failure: r.failure,
              retryAt:
                r.retry_at !== null ? fromIso(r.retry_at, "request_log.retry_at") : undefined,
            }),
          ),
        },
        living,
      );
      const a = admit(this.#pg ? { ...input, endAheadIsNow: false } : input);
      if ((a.kind === "go" || a.kind === "wait") && a.recovered !== undefined) {
        // The holder died mid-request: its row is interrupted, and the gap counts from now.
        const left = await tx
          .selectFrom("request_log")
          .select(["id", "site", "started_at", "retry_at", "attempt"])
          .where("site", "=", intent.site)
          .where("holder", "=", a.recovered)
          .where("ended_at", "is", null)
          .where("outcome", "=", "in-flight")
          .execute();
        await this.#interrupt(tx, left, now);
        await tx
          .updateTable("site_state")
          .set({
            lease_holder: null,
            lease_until: null,
            last_end_at: toIso(Math.max(site.lastEnd ?? now, now)),
            updated_at: toIso(now),
          })
          .where("site", "=", intent.site)
          .execute();
      }
      if (a.kind !== "go") return a;
      const row = await INSERT_ATTEMPT.first(tx, {
        // The planned start: now, or up to the intent's `aheadMs` later (the site gate sends
        // then, never before).
        startedAt: toIso(a.startedAt),
        method: intent.method,
        url: intent.url,
        site: intent.site,
        origin: intent.origin,
        source: intent.source ?? null,
        purpose: intent.purpose,
        attempt: a.attempt,
        night: intent.night,
        validatorsSent: intent.validatorsSent ? JSON.stringify(intent.validatorsSent) : null,
        holder,
        key: intent.key,
      });
      if (!row) throw new Error("request_log: the insert returned no id");
      await TAKE_LEASE.run(tx, {
        holder,
        until: toIso(a.startedAt + REQUEST_LEASE_MS),
        at: toIso(now),
        site: intent.site,
      });
      return { ...a, id: String(row.id), rules: rulesToken };
    });
  }

  async rulesNow(site: string): Promise<string> {
    const r = await RULES_NOW.first(this.#db, { site });
    return rulesTokenOf(r?.rules_set, r?.rules_cleared, r?.closed_night, r?.down_night);
  }

  waitAsked(id: string, w: WaitAsked): Promise<void> {
    return askedAgainOnLoss(() => this.#waitAsked(id, w), this.#clock);
  }

  #waitAsked(id: string, w: WaitAsked): Promise<void> {
    return this.group.run(async (tx) => {
      // Only while the attempt is under way: its completion, if it came first, has the word.
      // The row only while it is in flight (another process may have taken it over and marked
      // it interrupted: its truth is kept); what the site asked for holds on the site even so.
      const row =
        (await tx
          .updateTable("request_log")
          .set({
            status: w.status,
            ...(w.retryAt !== undefined ? { retry_at: toIso(w.retryAt) } : {}),
          })
          .where("id", "=", Number(id))
          .where("outcome", "=", "in-flight")
          .returning(["site", "night", "source"])
          .executeTakeFirst()) ??
        (await tx
          .selectFrom("request_log")
          .select(["site", "night", "source"])
          .where("id", "=", Number(id))
          .where("ended_at", "is", null)
          .executeTakeFirst());
      if (!row) return;
      const marks = nightMarks(row, w);
      if (w.siteNotBefore === undefined && marks === undefined) return;
      // P15: a hold asked by the clock as it is now, over an end stamped while it ran ahead.
      if (w.siteNotBefore !== undefined) await this.#countAhead(tx, row.site, this.#clock.now());
      await tx
        .updateTable("site_state")
        .set({
          ...(w.siteNotBefore !== undefined
            ? { not_before: laterOf("not_before", toIso(w.siteNotBefore)) }
            : {}),
          ...marks,
        })
        .where("site", "=", row.site)
        .execute();
    });
  }

  /**
   * Rows of holders found dead, marked interrupted; a wait one's head asked for (P15) counts
   * from `now`, when its end was found (policy/retry.ts retryAfterDeath), and holds its site.
   */
  async #interrupt(
    db: Tx,
    rows: readonly {
      id: number;
      site: string;
      started_at: string;
      retry_at: string | null;
      attempt: number | string | null;
    }[],
    now: number,
  ): Promise<number> {
    // The sites' holds first, in the order of their names, as an admission locks its site's
    // row before the request rows (PostgreSQL: no deadlock with one recovering the same row).
    const waits = new Map<number, number>();
    const holds = new Map<string, number>();
    for (const r of rows) {
      // A wait its head asked for, from now; a send cut short with none asked for is tried
      // again as a closed connection is (P15: 5 s, then 20 s, from now). Either holds its site,
      // as the wait before any retry does.
      const at = retryAfterDeath(
        r.retry_at !== null ? fromIso(r.retry_at, "request_log.retry_at") : undefined,
        fromIso(r.started_at, "request_log.started_at"),
        Number(r.attempt ?? 1),
        now,
      );
      if (at === undefined) continue;
      waits.set(r.id, at);
      if (at < LATEST_HOLD_MS) holds.set(r.site, Math.max(holds.get(r.site) ?? at, at));
    }
    for (const [site, at] of [...holds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      // P15: a wait counted from now, over an end stamped while the clock ran ahead.
      await this.#countAhead(db, site, now);
      await db
        .updateTable("site_state")
        .set({ not_before: laterOf("not_before", toIso(at)) })
        .where("site", "=", site)
        .execute();
    }
    // Then the rows, each only while still in flight (another process may have got there).
    let marked = 0;
    const plain = rows.filter((r) => !waits.has(r.id)).map((r) => r.id);
    for (const ids of chunks(plain)) {
      const done = await db
        .updateTable("request_log")
        .set({ outcome: "interrupted", failure: DIED_IN_FLIGHT })
        .where("id", "in", ids)
        .where("outcome", "=", "in-flight")
        .executeTakeFirst();
      marked += Number(done.numUpdatedRows);
    }
    for (const [id, at] of waits) {
      const done = await db
        .updateTable("request_log")
        .set({ outcome: "interrupted", failure: DIED_IN_FLIGHT, retry_at: toIso(at) })
        .where("id", "=", id)
        .where("outcome", "=", "in-flight")
        .executeTakeFirst();
      marked += Number(done.numUpdatedRows);
    }
    return marked;
  }

  /**
   * P10, P15 on SQLite (one host's clock): a site's end stamped by that clock while it ran ahead,
   * and its hold with it, counted as an admission counts them (admission.ts endAsCounted,
   * holdAsCounted), before a hold read by the clock as it is `now` is written beside them: else
   * the next admission, taking the new hold for one stamped ahead too, would move it back by
   * the days the clock ran ahead, below what the site asked (a Retry-After answered after NTP
   * set the clock right, its request admitted before). PostgreSQL's ends hold as written.
   */
  async #countAhead(tx: Tx, site: string, now: number): Promise<void> {
    if (this.#pg) return;
    const r = await tx
      .selectFrom("site_state")
      .select(["last_end_at", "not_before"])
      .where("site", "=", site)
      .executeTakeFirst();
    if (!r?.last_end_at) return;
    const lastEnd = fromIso(r.last_end_at, "site_state.last_end_at");
    const counted = endAsCounted(lastEnd, now);
    if (counted === lastEnd || counted === undefined) return;
    const notBefore = r.not_before ? fromIso(r.not_before, "site_state.not_before") : undefined;
    await writeCounted(tx, site, counted, holdAsCounted(notBefore, lastEnd, now), now);
  }

  complete(id: string, holder: string, c: Completion): Promise<boolean> {
    return askedAgainOnLoss(() => this.#complete(id, holder, c), this.#clock);
  }

  #complete(id: string, holder: string, c: Completion): Promise<boolean> {
    return this.group.run(async (tx) => {
      const end = toIso(c.endedAt);
      // Only a row still in flight and still its holder's (compare and set): one another
      // process took over while this one was frozen (marked interrupted) keeps that truth.
      const mineRow = await COMPLETE_ATTEMPT.first(tx, {
        end,
        status: c.status,
        outcome: c.outcome,
        failure: c.failure ?? null,
        bytes: c.bytes,
        validatorsReceived: c.validatorsReceived ? JSON.stringify(c.validatorsReceived) : null,
        evidence: c.evidence ? JSON.stringify(c.evidence) : null,
        final: c.final ? 1 : 0,
        closedEarly: c.closedEarly ? 1 : 0,
        retryAt: c.retryAt !== undefined ? toIso(c.retryAt) : null,
        retryAtIfNone: c.retryAtIfNone !== undefined ? toIso(c.retryAtIfNone) : null,
        answer: c.answer ? JSON.stringify(this.#pg ? c.answer : localAnswer(c.answer)) : null,
        id: Number(id),
        holder,
      });
      // Not ours any more: the row keeps the word of the process that took it over
      // (interrupted, counted as sent, never replayed), and what the site did stays in force on
      // the site (its end, a hold, a no: each only ever the stricter, P10, P15, P21).
      const late = mineRow ?? (await this.#answeredLate(tx, id, holder, c));
      const found =
        late === undefined
          ? await tx
              .selectFrom("request_log")
              .select(["site", "night", "source", "holder", "outcome", "ended_at"])
              .where("id", "=", Number(id))
              .executeTakeFirst()
          : undefined;
      const row = late ?? found;
      if (!row) return false;
      // Asked again after a lost connection whose COMMIT had gone through (askedAgainOnLoss):
      // the row is this completion's own, as written then.
      const again =
        found !== undefined &&
        found.holder === holder &&
        c.outcome !== "interrupted" &&
        found.outcome === c.outcome &&
        found.ended_at === end;
      const written = mineRow !== undefined || again;
      const marks = nightMarks(row, c);
      if (c.siteNotBefore === undefined && marks === undefined) {
        // Most answers: the site's end and its lease, in the statement below built once.
        await RELEASE_SITE.run(tx, { end, holder, site: row.site });
        return written;
      }
      // P15: a hold asked by the clock as it is now, over an end stamped while it ran ahead.
      if (c.siteNotBefore !== undefined) await this.#countAhead(tx, row.site, c.endedAt);
      // One statement: the later end wins, the later Retry-After wins, the lease is let go
      // only by its holder (every right-hand side reads the row as it was).
      const mine = sql<boolean>`${sql.ref("lease_holder")} = ${holder}`;
      await tx
        .updateTable("site_state")
        .set({
          last_end_at: laterOf("last_end_at", end),
          updated_at: end,
          ...(c.siteNotBefore !== undefined
            ? { not_before: laterOf("not_before", toIso(c.siteNotBefore)) }
            : {}),
          ...letGoBy(mine),
          ...marks,
        })
        .where("site", "=", row.site)
        .execute();
      return written;
    });
  }

  /**
   * P27: the answer of a row another process marked interrupted (its holder frozen past its
   * lease, taken over) is still what the site said: written on the row where it was never
   * written (no end yet), only by the row's own holder. The row stays `interrupted` and not
   * final (nothing replayed from it); its retry time only ever the later (P15). A completion
   * that read nothing of the site (never sent, or cut off before any head: readSomething)
   * writes nothing on it: the row stays counted as sent.
   */
  async #answeredLate(
    tx: Tx,
    id: string,
    holder: string,
    c: Completion,
  ): Promise<{ site: string; night: string | null; source: string | null } | undefined> {
    if (!readSomething(c)) return undefined;
    const retry = c.retryAt ?? c.retryAtIfNone;
    return tx
      .updateTable("request_log")
      .set({
        ended_at: toIso(c.endedAt),
        status: c.status,
        bytes: c.bytes,
        failure: answeredLate(c.outcome, c.failure),
        validators_received: c.validatorsReceived ? JSON.stringify(c.validatorsReceived) : null,
        evidence: c.evidence ? JSON.stringify(c.evidence) : null,
        ...(retry !== undefined ? { retry_at: laterOf("retry_at", toIso(retry)) } : {}),
      })
      .where("id", "=", Number(id))
      .where("holder", "=", holder)
      .where("outcome", "=", "interrupted")
      .where("ended_at", "is", null)
      .returning(["site", "night", "source"])
      .executeTakeFirst();
  }

  async answer(night: string, key: string): Promise<StoredAnswer | undefined> {
    const row = await this.#db
      .selectFrom("request_log")
      .select(["answer"])
      .where("night", "=", night)
      .where("request_key", "=", key)
      .where("final", "=", 1)
      .orderBy("id", "desc")
      .executeTakeFirst();
    if (!row?.answer) return undefined;
    return JSON.parse(row.answer) as StoredAnswer;
  }

  /**
   * Rows left in flight by holders that are gone become `interrupted`, so `nor log` tells a
   * crash from a request still running: on this host a process that is gone (`kill -9`), or
   * whose lease ran out STALE_MS ago (its pid reused by another program); from another host (a
   * worker on one PostgreSQL) a holder whose site lease has run out or passed to someone else,
   * which is when admission takes its site over too. On PostgreSQL a holder whose liveness lock
   * is still held (holder-liveness.ts: a process frozen mid-request) is not gone. Run when a
   * night starts and when it ends, since past the deadline no admission comes to do it.
   */
  async sweep(now: number): Promise<number> {
    const rows = await this.#db
      .selectFrom("request_log")
      .leftJoin("site_state", "site_state.site", "request_log.site")
      .select([
        "request_log.id as id",
        "request_log.holder as holder",
        "request_log.site as site",
        "request_log.started_at as started_at",
        "request_log.retry_at as retry_at",
        "request_log.attempt as attempt",
        "site_state.lease_holder as leaseHolder",
        "site_state.lease_until as leaseUntil",
      ])
      .where("request_log.outcome", "=", "in-flight")
      .execute();
    const leaseDead = (r: (typeof rows)[number], living?: ReadonlySet<string>) =>
      r.holder === null ||
      // A lease that passed to someone else (or was let go) means the row's holder was taken
      // over: dead. Otherwise the lease says: another host's until it runs out; this host's
      // while its process lives, up to STALE_MS past it (a pid another program now has); on
      // PostgreSQL either lives past that while its liveness lock is held (holder-liveness.ts).
      r.leaseHolder !== r.holder ||
      r.leaseUntil === null ||
      holderDead(
        { holder: r.holder, until: fromIso(r.leaseUntil, "site_state.lease_until") },
        now,
        living,
      );
    let dead = rows.filter((r) => leaseDead(r));
    if (this.#pg && dead.length > 0) {
      const asked = dead.flatMap((r) =>
        r.holder !== null && r.leaseHolder === r.holder && r.leaseUntil !== null ? [r.holder] : [],
      );
      const living = await heldElsewhere(this.#db, [...new Set(asked)]);
      if (living.size > 0) dead = dead.filter((r) => leaseDead(r, living));
    }
    if (dead.length === 0) return 0;
    // One transaction, retried as a group commit is when PostgreSQL picks it to break a
    // deadlock; each row marked only while still in flight.
    return writeTxnRetried(this.#db, (tx) => this.#interrupt(tx, dead, now));
  }

  async #siteFacts(
    tx: Tx,
    intent: SendIntent,
    now: number,
  ): Promise<{ site: SiteFacts; hasRules: boolean; hasPrior: boolean; rulesToken: string }> {
    const flags = (eb: ExpressionBuilder<Database, "site_state">) => flagsOf(eb, intent);
    const lock = async () => {
      if (!this.#pg) {
        // SQLite: the write lock (BEGIN IMMEDIATE) is held already; one statement reads all.
        return SITE_FACTS.first(tx, { site: intent.site, night: intent.night, key: intent.key });
      }
      const q = tx.selectFrom("site_state").selectAll().where("site_state.site", "=", intent.site);
      // PostgreSQL: a FOR UPDATE that waited for another transaction returns the row as that
      // one committed it, but the rest of its statement sees the snapshot from before the
      // wait (an answer stored meanwhile would read as "none"). So the flags are read by a
      // statement of their own, after the lock.
      const row = await q.forUpdate().executeTakeFirst();
      if (!row) return undefined;
      const f = await tx
        .selectFrom("site_state")
        .select(flags)
        .where("site_state.site", "=", intent.site)
        .executeTakeFirstOrThrow();
      return { ...row, ...f };
    };
    // One round trip for a site seen before; its row is made (and locked) the first time.
    let r = await lock();
    if (!r) {
      await tx
        .insertInto("site_state")
        .values({ site: intent.site, last_end_at: null, updated_at: toIso(now) })
        .onConflict((oc) => oc.column("site").doNothing())
        .execute();
      r = await lock();
    }
    const facts: SiteFacts = {};
    // Without the row (it cannot be, but if): read both, never assume none.
    if (!r) return { site: facts, hasRules: true, hasPrior: true, rulesToken: "unknown" };
    const where = `site_state ${intent.site}`;
    if (r.last_end_at) facts.lastEnd = fromIso(r.last_end_at, where);
    if (r.lease_holder && r.lease_until)
      facts.lease = { holder: r.lease_holder, until: fromIso(r.lease_until, where) };
    if (r.closed_night && r.closed_reason)
      facts.closed = { night: r.closed_night, reason: r.closed_reason };
    if (r.down_night && r.down_reason)
      facts.down = {
        night: r.down_night,
        reason: r.down_reason,
        ...(r.down_source ? { source: r.down_source } : {}),
      };
    if (r.not_before) facts.notBefore = fromIso(r.not_before, where);
    return {
      site: facts,
      // Rules are never deleted, only cleared: set and not cleared means some are in force.
      hasRules: Number(r.rules_set ?? 0) > Number(r.rules_cleared ?? 0),
      hasPrior: truthy(r.has_prior),
      rulesToken: rulesTokenOf(r.rules_set, r.rules_cleared, r.closed_night, r.down_night),
    };
  }
}

/**
 * A completion, or a head's wait, run again on a fresh session when PostgreSQL ended the one it
 * ran on or would not give one (write-txn.ts connectionLost): a worker frozen (SIGSTOP) in the
 * middle of it past IDLE_IN_TRANSACTION_MS, whose transaction the server rolled back; a server
 * restarting. Both give the same result run twice (the row only while in flight and its
 * holder's, or answered late where it has no end; the site's end, hold and no only ever the
 * stricter), so what the site answered is kept, never lost to the checker's own pause or the
 * store's (P10, P15, P21, P27). Anything else goes up. The pauses between the tries
 * (LOSS_PAUSES_MS) are slept on `clock`.
 */
async function askedAgainOnLoss<T>(write: () => Promise<T>, clock: Clock): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const pause = LOSS_PAUSES_MS[attempt];
      if (pause === undefined || !connectionLost(err)) throw err;
      await clock.sleep(pause);
    }
  }
}

/**
 * The statements of every admission and completion, built once (prepared.ts): the same SQL as
 * the builder calls they replace.
 */
const flagsOf = (
  eb: ExpressionBuilder<Database, "site_state">,
  f: { site: string; night: string; key: string },
) => [
  eb
    .exists(
      eb
        .selectFrom("request_log")
        .select("request_log.id")
        .where("request_log.night", "=", f.night)
        .where("request_log.request_key", "=", f.key)
        .where("request_log.outcome", "!=", "in-flight"),
    )
    .as("has_prior"),
  ...rulesCounts(eb, f.site),
];

/**
 * The site's owner rules counted: every rule set adds a row, every one cleared sets its
 * `cleared_at` (none is deleted), so the two counts change with any change of the rules.
 */
const rulesCounts = (eb: ExpressionBuilder<Database, "site_state">, site: string) => [
  eb
    .selectFrom("site_rules")
    .select((e) => e.fn.countAll<number | string>().as("n"))
    .where("site_rules.site", "=", site)
    .as("rules_set"),
  eb
    .selectFrom("site_rules")
    .select((e) => e.fn.count<number | string>("site_rules.cleared_at").as("n"))
    .where("site_rules.site", "=", site)
    .as("rules_cleared"),
];

/**
 * What a request's admission decided on that can change before it is sent, as one token: the
 * owner's rules (counted), and the nights the site was last closed by a no (P21) and found
 * down (P15's stricter rule). Another process's late answer (a worker frozen past its lease,
 * journal `#answeredLate`) can close the site or find it down after this process admitted a
 * request ahead: read again at sending, the token differs, and the request is not sent but
 * decided again, when admission sees the site closed or down.
 */
function rulesTokenOf(
  set: unknown,
  cleared: unknown,
  closedNight: string | null | undefined,
  downNight: string | null | undefined,
): string {
  return `${Number(set ?? 0)}:${Number(cleared ?? 0)}:${closedNight ?? ""}:${downNight ?? ""}`;
}

const RULES_NOW = prepared((db, $: Placeholder<{ site: string }>) =>
  db
    .selectFrom("site_rules")
    .select((eb) => [
      eb.fn.countAll<number | string>().as("rules_set"),
      eb.fn.count<number | string>("site_rules.cleared_at").as("rules_cleared"),
      eb
        .selectFrom("site_state")
        .select("site_state.closed_night")
        .where("site_state.site", "=", $("site"))
        .as("closed_night"),
      eb
        .selectFrom("site_state")
        .select("site_state.down_night")
        .where("site_state.site", "=", $("site"))
        .as("down_night"),
    ])
    .where("site_rules.site", "=", $("site")),
);

const SITE_FACTS = prepared((db, $: Placeholder<{ site: string; night: string; key: string }>) =>
  db
    .selectFrom("site_state")
    // Named, not `*`: read by these names on the store's direct path (statement-cache.ts).
    .select([
      "site_state.site",
      "site_state.last_end_at",
      "site_state.updated_at",
      "site_state.lease_holder",
      "site_state.lease_until",
      "site_state.closed_night",
      "site_state.closed_reason",
      "site_state.down_night",
      "site_state.down_reason",
      "site_state.down_source",
      "site_state.not_before",
    ])
    .where("site_state.site", "=", $("site"))
    .select((eb) => flagsOf(eb, { site: $("site"), night: $("night"), key: $("key") })),
);

const INSERT_ATTEMPT = prepared(
  (
    db,
    $: Placeholder<{
      startedAt: string;
      method: string;
      url: string;
      site: string;
      origin: string;
      source: string | null;
      purpose: string;
      attempt: number;
      night: string;
      validatorsSent: string | null;
      holder: string;
      key: string;
    }>,
  ) =>
    db
      .insertInto("request_log")
      .values({
        started_at: $("startedAt"),
        ended_at: null,
        method: $("method"),
        url: $("url"),
        status: null,
        outcome: "in-flight",
        failure: null,
        bytes: 0,
        site: $("site"),
        origin: $("origin"),
        source: $("source"),
        purpose: $("purpose"),
        attempt: $("attempt"),
        night: $("night"),
        validators_sent: $("validatorsSent"),
        validators_received: null,
        evidence: null,
        holder: $("holder"),
        request_key: $("key"),
      })
      .returning("id"),
);

const TAKE_LEASE = prepared(
  (db, $: Placeholder<{ holder: string; until: string; at: string; site: string }>) =>
    db
      .updateTable("site_state")
      .set({ lease_holder: $("holder"), lease_until: $("until"), updated_at: $("at") })
      .where("site", "=", $("site")),
);

const COMPLETE_ATTEMPT = prepared(
  (
    db,
    $: Placeholder<{
      end: string;
      status: number | null;
      outcome: string;
      failure: string | null;
      bytes: number;
      validatorsReceived: string | null;
      evidence: string | null;
      final: number;
      closedEarly: number;
      retryAt: string | null;
      retryAtIfNone: string | null;
      answer: string | null;
      id: number;
      holder: string;
    }>,
  ) =>
    db
      .updateTable("request_log")
      .set({
        ended_at: $("end"),
        status: $("status"),
        outcome: $("outcome"),
        failure: $("failure"),
        bytes: $("bytes"),
        validators_received: $("validatorsReceived"),
        evidence: $("evidence"),
        final: $("final"),
        closed_early: $("closedEarly"),
        // A completion without one keeps the retry time its head wrote (an interrupted one);
        // a send cut short by the checker's stop waits as a connection closed early, unless so.
        retry_at: sql<
          string | null
        >`coalesce(${$("retryAt")}, ${sql.ref("retry_at")}, ${$("retryAtIfNone")})`,
        answer: $("answer"),
      })
      .where("id", "=", $("id"))
      .where("outcome", "=", "in-flight")
      .where("holder", "=", $("holder"))
      .returning(["site", "night", "source"]),
);

/** The site's end (the later wins) and its lease let go by its holder: complete() below. */
const RELEASE_SITE = prepared(
  (db, $: Placeholder<{ end: string; holder: string; site: string }>) => {
    const mine = sql<boolean>`${sql.ref("lease_holder")} = ${$("holder")}`;
    return db
      .updateTable("site_state")
      .set({
        last_end_at: laterOf("last_end_at", $("end")),
        updated_at: $("end"),
        ...letGoBy(mine),
      })
      .where("site", "=", $("site"));
  },
);

/**
 * What an answer leaves on its site for the night its row was sent in: closed by a no (P21),
 * down (P15's stricter rule, with the source that found it). Undefined when it leaves neither,
 * or its row belongs to no night (a command outside one). Never over a later night's: a late
 * answer (its worker frozen past its lease, across midnight) from an earlier night leaves the
 * later night's word as it stands (nights are 'YYYY-MM-DD', so they compare as text; every
 * right-hand side reads the row as it was, so the reason follows the night it is kept with).
 */
function nightMarks(
  row: { night: string | null; source: string | null },
  m: { closeSite?: string; downSite?: string },
) {
  const night = row.night;
  if (night === null || (m.closeSite === undefined && m.downSite === undefined)) return undefined;
  const unlessLater = <T>(nightColumn: "closed_night" | "down_night", column: string, value: T) =>
    sql<T>`case when ${sql.ref(nightColumn)} is not null and ${sql.ref(nightColumn)} > ${night} then ${sql.ref(column)} else ${value} end`;
  return {
    ...(m.closeSite !== undefined
      ? {
          closed_night: unlessLater("closed_night", "closed_night", night),
          closed_reason: unlessLater("closed_night", "closed_reason", m.closeSite),
        }
      : {}),
    ...(m.downSite !== undefined
      ? {
          down_night: unlessLater("down_night", "down_night", night),
          down_reason: unlessLater("down_night", "down_reason", m.downSite),
          down_source: unlessLater("down_night", "down_source", row.source),
        }
      : {}),
  };
}

/**
 * P16, P8: the answer as SQLite keeps it. A robots.txt read's body rides with its answer for a
 * machine whose archive lacks the copy (PostgreSQL, a data directory per machine); SQLite's store
 * lives beside its one archive, which holds a complete read's copy (`archived`): its bytes kept
 * here too would only grow the request log by every origin's robots.txt each night. One read
 * over the limit, which the archive keeps none of, keeps its first bytes.
 */
function localAnswer(a: NonNullable<Completion["answer"]>): NonNullable<Completion["answer"]> {
  if (a.kind !== "response" || a.robotsBody === undefined || !a.archived || a.read !== "complete")
    return a;
  const { robotsBody: _kept, ...rest } = a;
  return rest;
}

/** A site's end (and hold) as counted from `now` (admission.ts endAsCounted, holdAsCounted). */
async function writeCounted(
  tx: Tx,
  site: string,
  lastEnd: number,
  hold: number | undefined,
  now: number,
): Promise<void> {
  await tx
    .updateTable("site_state")
    .set({
      last_end_at: toIso(lastEnd),
      updated_at: toIso(now),
      ...(hold !== undefined ? { not_before: toIso(hold) } : {}),
    })
    .where("site", "=", site)
    .execute();
}

/** The later of a column's time and `at` (ISO text compares as time): a hold never shortens. */
function laterOf(column: "not_before" | "last_end_at" | "retry_at", at: string) {
  return sql<string>`case when ${sql.ref(column)} is not null and ${sql.ref(column)} > ${at} then ${sql.ref(column)} else ${at} end`;
}

/** The site's lease let go, only when `mine` (its holder is the one completing) holds. */
function letGoBy(mine: RawBuilder<boolean>) {
  return {
    lease_holder: sql<
      string | null
    >`case when ${mine} then null else ${sql.ref("lease_holder")} end`,
    lease_until: sql<string | null>`case when ${mine} then null else ${sql.ref("lease_until")} end`,
  };
}

/** EXISTS comes back as a boolean from PostgreSQL and as 0 or 1 from SQLite. */
function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === "1" || v === "t";
}
/** The owners' requests still in force for a site (P24-style: a person's decision). */
export async function ownerRules(db: Tx, site: string): Promise<OwnerRule[]> {
  const rows = await db
    .selectFrom("site_rules")
    .selectAll()
    .where("site", "=", site)
    .where("cleared_at", "is", null)
    .execute();
  const out: OwnerRule[] = [];
  for (const r of rows) {
    const at = fromIso(r.at, `site_rules ${r.id}`);
    if (r.kind === "gap") out.push({ kind: "gap", gapMs: Number(r.value), reason: r.reason, at });
    else if (r.kind === "leave-alone")
      out.push({ kind: "leave-alone", prefix: r.value ?? "/", reason: r.reason, at });
    else out.push({ kind: "not-read", reason: r.reason, at });
  }
  return out;
}
