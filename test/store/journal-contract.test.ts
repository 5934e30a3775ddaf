import { afterAll, describe, expect, it } from "vitest";
import type { Admitted, JournalPort, SendIntent } from "../../src/net/journal.js";
import { MemoryJournal } from "../../src/net/memory-ports.js";
import type { RequestLogEntry } from "../../src/net/types.js";
import type { OwnerRule } from "../../src/policy/admission.js";
import { DIED_IN_FLIGHT } from "../../src/policy/admission.js";
import { LATEST_HOLD_MS } from "../../src/policy/retry.js";
import { openStore, type Store } from "../../src/store/db.js";
import { newHolderId } from "../../src/store/holder.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { clearSiteRules, setSiteRule } from "../../src/store/site-rules.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "./stores.js";

/**
 * One contract over every implementation of the journal port (memory, SQLite, PostgreSQL), as
 * undici runs one suite over its cache stores: the same decisions to send from the same
 * durable state (P9, P10, P15, P21, P27, the owners' requests).
 */
interface Subject {
  journal: JournalPort;
  rule(site: string, r: OwnerRule): Promise<void>;
  /** The site's rules of this kind cleared, as `nor site --clear` does. */
  clear(site: string, kind: OwnerRule["kind"]): Promise<void>;
  /** Each row's URL and start, as the log (P27) shows them. */
  starts(): Promise<{ url: string; startedAt: number }[]>;
  /** Each row's URL, outcome and status, as the log (P27) shows them. */
  outcomes(): Promise<{ url: string; outcome: string; status: number | null }[]>;
  /** Every row whole, as the log (P27) shows it. */
  entries(): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
}

type Maker = { name: string; make(): Promise<Subject> };

const T0 = Date.parse("2026-11-05T06:00:00Z");
const NIGHT = "2026-11-05";
const ME = "test-host:1:me";
/** A holder whose process is gone on this host is dead at once (pid far above any real one). */
const DEAD = `${(await import("node:os")).hostname()}:2147483646:dead`;
/** Another live holder of this process (a second fetcher): made here, so it is alive. */
const OTHER_LIVE = newHolderId(() => "other");
/**
 * A holder on another host: only its lease tells whether it is alive. A name of this file's
 * own: on PostgreSQL a holder's liveness lock is the run database's, and other files hold
 * one for theirs (pg-holder-alive's `machine-a:101:aaaa`) while this file's tests run.
 */
const OTHER_HOST = "machine-j:101:jjjj";

function intent(url: string, extra: Partial<SendIntent> = {}): SendIntent {
  const u = new URL(url);
  return {
    night: NIGHT,
    key: `GET ${url}`,
    method: "GET",
    url,
    site: u.hostname.split(".").slice(-2).join("."),
    origin: u.origin,
    purpose: "page",
    gapMs: 2000,
    replayAllowed: true,
    ...extra,
  };
}

const sqlMaker = (factory: StoreFactory): Maker => ({
  name: factory.name,
  make: async () => {
    const store: Store = await openStore(await factory.migrated());
    return {
      journal: new SqlJournal(store.db),
      rule: async (site, r) => {
        await setSiteRule(store.db, {
          site,
          kind: r.kind,
          ...(r.kind === "gap" ? { value: String(r.gapMs) } : {}),
          ...(r.kind === "leave-alone" ? { value: r.prefix } : {}),
          reason: r.reason,
          at: r.at,
          by: "test",
        });
      },
      clear: async (site, kind) => {
        await clearSiteRules(store.db, { site, kind, at: T0, by: "test" });
      },
      starts: async () =>
        (await new SqlRequestLog(store.db).query({})).map((e) => ({
          url: e.url,
          startedAt: e.startedAt,
        })),
      outcomes: async () =>
        (await new SqlRequestLog(store.db).query({})).map((e) => ({
          url: e.url,
          outcome: e.outcome,
          status: e.status,
        })),
      entries: () => new SqlRequestLog(store.db).query({}),
      close: () => store.close(),
    };
  },
});

const factories: StoreFactory[] = [sqliteFactory()];
if (postgresUrl) factories.push(postgresFactory(postgresUrl));
const makers: Maker[] = [
  {
    name: "memory",
    make: async () => {
      const journal = new MemoryJournal();
      return {
        journal,
        rule: async (site, r) => {
          journal.rules.set(site, [...(journal.rules.get(site) ?? []), r]);
        },
        clear: async (site, kind) => {
          journal.rules.set(
            site,
            (journal.rules.get(site) ?? []).filter((r) => r.kind !== kind),
          );
        },
        starts: async () => journal.entries.map((e) => ({ url: e.url, startedAt: e.startedAt })),
        outcomes: async () =>
          journal.entries.map((e) => ({ url: e.url, outcome: e.outcome, status: e.status })),
        entries: async () => journal.entries.map((e) => ({ ...e })),
        close: async () => {},
      };
    },
  },
  ...factories.map(sqlMaker),
];
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

const done = {
  status: 200,
  outcome: "ok",
  bytes: 10,
  final: true,
  closedEarly: false,
} as const;

/**
 * A worker on another host admits `url` at T0 and is frozen (SIGSTOP) past its request's lease;
 * ME then asks the same site, takes it over (the frozen row marked interrupted), waits the gap
 * and the cut send's hold (bounded), sends, and completes its own request 700 ms later.
 */
async function frozenAndTakenOver(
  s: Subject,
  url: string,
): Promise<{ frozen: Extract<Admitted, { kind: "go" }>; at: number; mineUrl: string }> {
  const frozen = await s.journal.admit(intent(url), OTHER_HOST, T0);
  if (frozen.kind !== "go") throw new Error(frozen.kind);
  const mineUrl = `${new URL(url).origin}/next`;
  let at = T0 + REQUEST_LEASE_MS + 1;
  let mine = await s.journal.admit(intent(mineUrl), ME, at);
  for (let i = 0; i < 3 && mine.kind === "wait"; i++) {
    at = mine.until;
    mine = await s.journal.admit(intent(mineUrl), ME, at);
  }
  if (mine.kind !== "go") throw new Error(mine.kind);
  expect(await s.journal.complete(mine.id, ME, { ...done, endedAt: at + 700 })).toBe(true);
  return { frozen, at, mineUrl };
}

describe.each(makers)("the journal's contract: $name", (m) => {
  it("P10, P18, P26: an admission says which owner rules it read; a rule set or cleared since, on that site only, changes them", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/1", { aheadMs: 500 }), ME, T0);
      expect(a.kind).toBe("go");
      if (a.kind !== "go") return;
      expect(await s.journal.rulesNow("a.gov")).toBe(a.rules);
      // Another site's rule: this site's unchanged.
      await s.rule("b.gov", { kind: "not-read", reason: "asked", at: T0 });
      expect(await s.journal.rulesNow("a.gov")).toBe(a.rules);
      await s.rule("a.gov", { kind: "gap", gapMs: 10_000, reason: "asked", at: T0 });
      const withGap = await s.journal.rulesNow("a.gov");
      expect(withGap).not.toBe(a.rules);
      await s.clear("a.gov", "gap");
      const cleared = await s.journal.rulesNow("a.gov");
      expect(cleared).not.toBe(withGap);
      // The next admission reads them as they now stand.
      await s.journal.complete(a.id, ME, { ...done, endedAt: T0 + 100 });
      const b = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 60_000);
      expect(b.kind).toBe("go");
      if (b.kind === "go") expect(b.rules).toBe(cleared);
    } finally {
      await s.close();
    }
  });

  it("P27, P10: the row is written on admission; the next request to the site waits the gap from the end", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0);
      expect(a.kind).toBe("go");
      if (a.kind !== "go") return;
      expect(a.attempt).toBe(1);
      // In flight: another holder of this process waits for the lease.
      const busy = await s.journal.admit(intent("https://www.a.gov/2"), OTHER_LIVE, T0 + 10);
      expect(busy.kind).toBe("wait");
      await s.journal.complete(a.id, ME, { ...done, endedAt: T0 + 500 });
      const next = await s.journal.admit(intent("https://www.a.gov/2"), OTHER_LIVE, T0 + 600);
      expect(next).toMatchObject({ kind: "wait", until: T0 + 2501 });
      expect((await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2501)).kind).toBe("go");
    } finally {
      await s.close();
    }
  });

  it("P10, P13: a site's last end stamped two days ahead (a clock that ran fast, then set right) holds the site the gap from now, once: not for two days, and not again from each later now", async () => {
    const s = await m.make();
    const DAY = 86_400_000;
    try {
      // The request of a night run two days fast ended "two days from now".
      const fast = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 2 * DAY);
      expect(fast.kind).toBe("go");
      if (fast.kind !== "go") return;
      await s.journal.complete(fast.id, ME, { ...done, endedAt: T0 + 2 * DAY + 500 });
      // The clock set right: the real end was at the latest now, so the gap counts from now.
      // Not on PostgreSQL: there each process reads the server's time apart, and an end ahead of
      // this one's may be another's of a moment ago (revclock-end-ahead-pg.test.ts): it holds.
      if (m.name === "postgres") {
        const held = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0);
        expect(held.kind).toBe("not-tonight");
        return;
      }
      const first = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0);
      expect(first).toMatchObject({ kind: "wait", until: T0 + 2001 });
      // Waited out, it goes: the gap is not counted again from the later now.
      const next = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2001);
      expect(next).toMatchObject({ kind: "go", startedAt: T0 + 2001 });
    } finally {
      await s.close();
    }
  });

  it("P10, P15, P20: a Retry-After hold stamped two days ahead (a clock that ran fast, then set right) holds the site what the answer asked from its end, counted from now: never two days more, never less than asked", async () => {
    const s = await m.make();
    const DAY = 86_400_000;
    try {
      // A night run two days fast: a 503 asking for 2 minutes, its end "two days from now".
      const fast = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 2 * DAY);
      if (fast.kind !== "go") throw new Error(fast.kind);
      const end = T0 + 2 * DAY + 500;
      await s.journal.complete(fast.id, ME, {
        ...done,
        status: 503,
        outcome: "error",
        endedAt: end,
        siteNotBefore: end + 120_000,
      });
      // On PostgreSQL an end ahead holds as written (each process reads the server's time
      // apart), and so does the hold: the stricter side.
      if (m.name === "postgres") {
        const held = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0);
        expect(held.kind).toBe("not-tonight");
        return;
      }
      // The clock set right: that answer came at the latest now, so the site is held the two
      // minutes it asked from now (more than the gap), not two days and two minutes.
      const first = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0);
      expect(first).toMatchObject({ kind: "wait", until: T0 + 120_000 });
      // Never sooner: a moment before the two minutes, still held; written once, not counted
      // again from each later now.
      expect(await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 60_000)).toMatchObject({
        kind: "wait",
        until: T0 + 120_000,
      });
      const next = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 120_000);
      expect(next).toMatchObject({ kind: "go", startedAt: T0 + 120_000 });
    } finally {
      await s.close();
    }
  });

  it("P15, P10: a Retry-After answered after the clock was set right (its request admitted while the clock ran ahead, the site's last end stamped ahead) holds the site what it asked from that answer, never shortened by the days the clock ran ahead", async () => {
    const s = await m.make();
    const DAY = 86_400_000;
    try {
      // A night run two days fast: one answer, its end "two days from now".
      const first = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 2 * DAY);
      if (first.kind !== "go") throw new Error(first.kind);
      await s.journal.complete(first.id, ME, { ...done, endedAt: T0 + 2 * DAY + 500 });
      // The next admitted while still fast; NTP sets the clock right while it is sent: its 503
      // asks for 30 s, counted by the clock now right.
      const second = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2 * DAY + 3000);
      if (second.kind !== "go") throw new Error(second.kind);
      await s.journal.complete(second.id, ME, {
        ...done,
        status: 503,
        outcome: "error",
        endedAt: T0 + 500,
        siteNotBefore: T0 + 30_500,
      });
      // A second later: the site asked for 30 s from its answer; nothing goes before.
      const next = await s.journal.admit(intent("https://www.a.gov/3"), ME, T0 + 1000);
      expect(next.kind).not.toBe("go");
      if (next.kind === "wait") expect(next.until).toBeGreaterThanOrEqual(T0 + 30_500);
    } finally {
      await s.close();
    }
  });

  it("P10, P13, P27: admitted ahead, the row says its planned start, the lease is held from the admission, and the deadline is judged by that start", async () => {
    const s = await m.make();
    try {
      const ahead = { aheadMs: 250 };
      const a = await s.journal.admit(intent("https://www.a.gov/1", ahead), ME, T0);
      expect(a).toMatchObject({ kind: "go", startedAt: T0 });
      if (a.kind !== "go") return;
      await s.journal.complete(a.id, ME, { ...done, endedAt: T0 + 500 });
      // Earliest start: T0 + 500 + 2000 + 1. Asked sooner than 250 ms before it: wait till then.
      expect(await s.journal.admit(intent("https://www.a.gov/2", ahead), ME, T0 + 2000)).toEqual({
        kind: "wait",
        until: T0 + 2251,
        why: "gap",
      });
      // A start after the deadline is not tonight, though the admission comes before it.
      const late = intent("https://www.a.gov/late", { ...ahead, deadline: T0 + 2400 });
      expect((await s.journal.admit(late, ME, T0 + 2300)).kind).toBe("not-tonight");
      const b = await s.journal.admit(intent("https://www.a.gov/2", ahead), ME, T0 + 2251);
      expect(b).toMatchObject({ kind: "go", startedAt: T0 + 2501 });
      if (b.kind !== "go") return;
      // P9: the site is held from the admission on: another holder waits, before the start too.
      const busy = await s.journal.admit(intent("https://www.a.gov/3"), OTHER_LIVE, T0 + 2300);
      expect(busy).toMatchObject({ kind: "wait", why: "in flight" });
      expect((await s.starts()).map((r) => r.startedAt)).toEqual([T0, T0 + 2501]);
      await s.journal.complete(b.id, ME, { ...done, endedAt: T0 + 2600 });
      expect(await s.journal.admit(intent("https://www.a.gov/3"), OTHER_LIVE, T0 + 2700)).toEqual({
        kind: "wait",
        until: T0 + 4601,
        why: "gap",
      });
    } finally {
      await s.close();
    }
  });

  it("P15: one request is sent at most three times a night, the checker's own cut-short sends included; one never sent does not count", async () => {
    const s = await m.make();
    try {
      let t = T0;
      const once = async (failure: string) => {
        t += 10_000;
        const a = await s.journal.admit(intent("https://www.a.gov/1"), ME, t);
        if (a.kind !== "go") return a.kind;
        await s.journal.complete(a.id, ME, {
          endedAt: t + 5,
          status: null,
          outcome: "interrupted",
          failure,
          bytes: 0,
          final: false,
          closedEarly: false,
        });
        return a.kind;
      };
      // Stopped before their planned start: the site saw nothing; they are no sends.
      for (let i = 0; i < 4; i++)
        expect(await once("not sent: stopped before its planned start")).toBe("go");
      // Cut short by the checker's own end: three, then not again tonight.
      for (let i = 0; i < 3; i++) expect(await once("internal: the checker stopped")).toBe("go");
      expect(await once("internal: the checker stopped")).toBe("exhausted");
    } finally {
      await s.close();
    }
  });

  it("P8: an answer stored in full is replayed, never asked again tonight (but asked on another night)", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      const answer = {
        kind: "response" as const,
        status: 200,
        headers: { "content-type": "text/html" },
        read: "complete" as const,
        bytes: 10,
        archived: true,
        startedAt: T0,
        endedAt: T0 + 5,
        attempt: 1,
        priorAllClosed: false,
      };
      await s.journal.complete(a.id, ME, { ...done, endedAt: T0 + 5, answer });
      expect((await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 9000)).kind).toBe(
        "answered",
      );
      expect(await s.journal.answer(NIGHT, "GET https://www.a.gov/1")).toEqual(answer);
      const copyGone = intent("https://www.a.gov/1", { replayAllowed: false });
      const again = await s.journal.admit(copyGone, ME, T0 + 9000);
      expect(again.kind).toBe("go");
      if (again.kind === "go")
        await s.journal.complete(again.id, ME, { ...done, endedAt: T0 + 9005 });
      const tomorrow = intent("https://www.a.gov/1", { night: "2026-11-06" });
      expect((await s.journal.admit(tomorrow, ME, T0 + 86_400_000)).kind).toBe("go");
    } finally {
      await s.close();
    }
  });

  it("P3, P8: a request refused by the checker's own address check is no answer and no try: a command allowed to ask the address asks it the same night", async () => {
    const s = await m.make();
    try {
      const url = "http://127.0.0.1:8080/robots.txt";
      const robots = intent(url, { site: "127.0.0.1", purpose: "robots" });
      const a = await s.journal.admit(robots, ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.complete(a.id, ME, {
        ...done,
        status: null,
        outcome: "blocked-address",
        failure: "blocked-address: E_BLOCKED_ADDRESS: address 127.0.0.1 is not a public address",
        bytes: 0,
        endedAt: T0 + 1,
      });
      // Three such refusals use up nothing: the fourth admission still goes, as attempt 1.
      let t = T0 + 3000;
      for (let i = 0; i < 3; i++, t += 3000) {
        const again = await s.journal.admit(robots, ME, t);
        if (again.kind !== "go") throw new Error(`refusal ${i + 2}: ${again.kind}`);
        expect(again.attempt).toBe(1);
        await s.journal.complete(again.id, ME, {
          ...done,
          status: null,
          outcome: "blocked-address",
          failure: "blocked-address: not a public address",
          bytes: 0,
          endedAt: t + 1,
        });
      }
      const asked = await s.journal.admit(robots, ME, t);
      expect(asked.kind).toBe("go");
      if (asked.kind === "go") {
        expect(asked.attempt).toBe(1);
        await s.journal.complete(asked.id, ME, { ...done, endedAt: t + 5 });
      }
      // Once the site answered, that answer is tonight's.
      expect((await s.journal.admit(robots, ME, t + 9000)).kind).toBe("answered");
    } finally {
      await s.close();
    }
  });

  it("P15: attempts are counted across restarts, each waits its retry time, and a third failure is the last", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/busy";
      let now = T0;
      for (let n = 1; n <= 3; n++) {
        const a = await s.journal.admit(intent(url), ME, now);
        expect(a).toMatchObject({ kind: "go", attempt: n });
        if (a.kind !== "go") return;
        const retryAt = now + 100 + (n === 1 ? 5000 : 20_000);
        await s.journal.complete(a.id, ME, {
          ...done,
          status: 503,
          outcome: n < 3 ? "retry" : "error",
          final: n === 3,
          endedAt: now + 100,
          ...(n < 3 ? { retryAt } : {}),
        });
        if (n < 3) {
          expect(await s.journal.admit(intent(url), ME, now + 3000)).toMatchObject({
            kind: "wait",
            until: retryAt,
          });
          now = retryAt;
        }
      }
      expect((await s.journal.admit(intent(url), ME, now + 60_000)).kind).toBe("answered");
    } finally {
      await s.close();
    }
  });

  it("P10, P15, P27: a dead holder's request is interrupted; the gap counts from its discovery; it counts as a send, and is tried again as a closed connection is (5 s from then)", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/1"), DEAD, T0);
      expect(a.kind).toBe("go");
      // Found dead at T0 + 100: its gap counts from then, and the cut request is tried again as
      // a closed connection is, P15's 5 s from then, the site held meanwhile as before any retry
      // (the row and the site carry it from that admission on).
      const next = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 100);
      expect(next).toMatchObject({ kind: "wait", until: T0 + 2101 });
      const later = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 2101);
      expect(later).toMatchObject({ kind: "wait", until: T0 + 5100 });
      const other = await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2101);
      expect(other).toMatchObject({ kind: "wait", until: T0 + 5100 });
      const again = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 5100);
      // The killed attempt may have reached the site (P15 counts what the site saw): the second.
      expect(again).toMatchObject({ kind: "go", attempt: 2 });
    } finally {
      await s.close();
    }
  });

  it("P27, P8: a late completion of a row another worker took over (marked interrupted) keeps that word: the row stays interrupted (what the site answered written on it), nothing is replayed from it, the new holder's lease stands", async () => {
    const s = await m.make();
    try {
      // A worker on another host admits a page, then is frozen (SIGSTOP) past its request's
      // lease; this worker's admission to the site takes the lease over and marks the row.
      const url = "https://www.a.gov/frozen";
      const a = await s.journal.admit(intent(url), OTHER_HOST, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      let takeover = T0 + REQUEST_LEASE_MS + 1;
      let mine = await s.journal.admit(intent("https://www.a.gov/next"), ME, takeover);
      // The gap from the takeover, then the cut send's hold (P15): bounded waits.
      for (let i = 0; i < 3 && mine.kind === "wait"; i++) {
        takeover = mine.until;
        mine = await s.journal.admit(intent("https://www.a.gov/next"), ME, takeover);
      }
      expect(mine).toMatchObject({ kind: "go" });
      // The frozen worker wakes, reads what had arrived and completes its row, late; its head
      // (a 503 asking for a wait) first, as the head-wait step journals it.
      await s.journal.waitAsked(a.id, { status: 503, retryAt: takeover + 60_000 });
      const written = await s.journal.complete(a.id, OTHER_HOST, {
        ...done,
        endedAt: takeover + 500,
        answer: {
          kind: "response",
          status: 200,
          headers: {},
          read: "complete",
          bytes: 10,
          archived: false,
          startedAt: T0,
          endedAt: takeover + 500,
          attempt: 1,
          priorAllClosed: false,
        },
      });
      expect(written).toBe(false);
      const rows = await s.outcomes();
      expect(rows.find((r) => r.url === url)).toMatchObject({
        outcome: "interrupted",
        status: 200,
      });
      // Not a stored answer: the lane's new holder asks the page itself (a second send, P15).
      expect(await s.journal.answer(NIGHT, `GET ${url}`)).toBeUndefined();
      // The site's lease is still this worker's: a third process waits for it.
      expect(
        (await s.journal.admit(intent("https://www.a.gov/third"), OTHER_LIVE, takeover + 600)).kind,
      ).toBe("wait");
      // This worker's own completion is written.
      if (mine.kind !== "go") throw new Error(mine.kind);
      expect(await s.journal.complete(mine.id, ME, { ...done, endedAt: takeover + 700 })).toBe(
        true,
      );
    } finally {
      await s.close();
    }
  });

  it("P10, P15, P21: an answer read after its row was taken over (its holder frozen past its lease) still moves the site: the gap counts from its real end, its Retry-After holds the site and the request, its no closes the site", async () => {
    const s = await m.make();
    try {
      // A plain answer, read 5 s after the takeover: the next request waits the gap from it.
      const a = await frozenAndTakenOver(s, "https://www.a.gov/frozen");
      const aEnd = a.at + 5000;
      expect(await s.journal.complete(a.frozen.id, OTHER_HOST, { ...done, endedAt: aEnd })).toBe(
        false,
      );
      expect(
        await s.journal.admit(intent("https://www.a.gov/third"), OTHER_LIVE, aEnd + 10),
      ).toMatchObject({ kind: "wait", until: aEnd + 2001 });
      // A 503 asking for 30 s: the site and the request itself wait for it.
      const b = await frozenAndTakenOver(s, "https://www.b.gov/busy");
      const bEnd = b.at + 3000;
      await s.journal.complete(b.frozen.id, OTHER_HOST, {
        status: 503,
        outcome: "retry",
        bytes: 5,
        final: false,
        closedEarly: false,
        endedAt: bEnd,
        retryAt: bEnd + 30_000,
        siteNotBefore: bEnd + 30_000,
      });
      expect(
        await s.journal.admit(intent("https://www.b.gov/other"), OTHER_LIVE, bEnd + 10_000),
      ).toMatchObject({ kind: "wait", until: bEnd + 30_000 });
      const again = await s.journal.admit(intent("https://www.b.gov/busy"), ME, bEnd + 10_000);
      expect(again.kind).toBe("wait");
      if (again.kind === "wait") expect(again.until).toBeGreaterThanOrEqual(bEnd + 30_000);
      // A challenge page (the site's no, P21): the site is closed for the night.
      const c = await frozenAndTakenOver(s, "https://www.c.gov/x");
      await s.journal.complete(c.frozen.id, OTHER_HOST, {
        ...done,
        outcome: "refused",
        final: true,
        endedAt: c.at + 2000,
        closeSite: "challenge page (cloudflare)",
      });
      expect(await s.journal.admit(intent("https://www.c.gov/y"), ME, c.at + 60_000)).toEqual({
        kind: "closed",
        reason: "challenge page (cloudflare)",
      });
    } finally {
      await s.close();
    }
  });

  it.each([
    ["a no (P21)", { status: 403, outcome: "refused", closeSite: "HTTP 403" }],
    [
      "the site down (P15)",
      { status: 503, outcome: "error", downSite: "HTTP 503 after its retries" },
    ],
  ] as const)(
    "P21, P15, P27: a late answer that leaves the site closed or down, written after the new holder admitted a request ahead, changes the token read again at sending: %s",
    async (_what, late) => {
      const s = await m.make();
      try {
        const url = "https://www.a.gov/frozen";
        const { frozen, at } = await frozenAndTakenOver(s, url);
        // The new holder admits its next request ahead of its start (the gap), then the frozen
        // worker wakes and writes its late answer: the site is closed (or down) tonight.
        const third = intent("https://www.a.gov/third", { aheadMs: 3000 });
        let next = await s.journal.admit(third, ME, at + 700);
        for (let i = 0; i < 3 && next.kind === "wait"; i++)
          next = await s.journal.admit(third, ME, next.until);
        expect(next.kind).toBe("go");
        if (next.kind !== "go") return;
        expect(await s.journal.rulesNow("a.gov")).toBe(next.rules);
        await s.journal.complete(frozen.id, OTHER_HOST, {
          ...done,
          ...late,
          endedAt: at + 1000,
        });
        // Read again at sending: not what the admission read, so it is not sent but decided again.
        expect(await s.journal.rulesNow("a.gov")).not.toBe(next.rules);
      } finally {
        await s.close();
      }
    },
  );

  it("P27: an answer read after its row was taken over is on the record: its row keeps the status, end, bytes and a no's evidence, says it came late, and stays interrupted (counted as sent, never replayed); the new holder's row is left as it wrote it", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/frozen";
      const { frozen, at, mineUrl } = await frozenAndTakenOver(s, url);
      const end = at + 5000;
      const written = await s.journal.complete(frozen.id, OTHER_HOST, {
        ...done,
        status: 403,
        outcome: "refused",
        bytes: 321,
        endedAt: end,
        evidence: { provider: "cloudflare", verdict: "block", reference: "8f1c2a" },
        validatorsReceived: { etag: '"v1"' },
        closeSite: "HTTP 403",
      });
      expect(written).toBe(false);
      const rows = await s.entries();
      const row = rows.find((r) => r.url === url);
      expect(row).toMatchObject({
        outcome: "interrupted",
        status: 403,
        endedAt: end,
        bytes: 321,
        evidence: { provider: "cloudflare", verdict: "block", reference: "8f1c2a" },
        validatorsReceived: { etag: '"v1"' },
      });
      expect(row?.failure).toMatch(/^answered late \(refused\)/);
      // Not a stored answer (the lane is another's: it asks and records the page itself).
      expect(await s.journal.answer(NIGHT, `GET ${url}`)).toBeUndefined();
      // The new holder's own row is as it wrote it.
      expect(rows.find((r) => r.url === mineUrl)).toMatchObject({
        outcome: "ok",
        status: 200,
        endedAt: at + 700,
        bytes: 10,
      });
      // A second late word on the same row (it cannot come, but if) changes nothing more.
      await s.journal.complete(frozen.id, OTHER_HOST, { ...done, endedAt: end + 1 });
      expect((await s.entries()).find((r) => r.url === url)).toMatchObject({
        status: 403,
        endedAt: end,
      });
    } finally {
      await s.close();
    }
  });

  it.each([
    ["closed by a no (P21), its completion", "complete", "close"],
    ["closed by a no (P21), its head's wait", "wait", "close"],
    ["down (P15), its completion", "complete", "down"],
    ["down (P15), its head's wait", "wait", "down"],
  ] as const)(
    "P21, P15, P27: a late answer from an earlier night (its worker frozen a day) never puts the site's later night back to its own: the site stays %s as the later night found it",
    async (_what, via, mark) => {
      const s = await m.make();
      try {
        const NEXT = "2026-11-06";
        const T1 = T0 + 24 * 3600_000;
        // Night 2026-11-05: a worker on another host admits a request, then is frozen a day.
        const frozen = await s.journal.admit(intent("https://www.a.gov/frozen"), OTHER_HOST, T0);
        if (frozen.kind !== "go") throw new Error(frozen.kind);
        // Night 2026-11-06: ME takes the site over and finds it closed (or down) tonight.
        const todayIntent = intent("https://www.a.gov/today", { night: NEXT });
        let at = T1;
        let mine = await s.journal.admit(todayIntent, ME, at);
        for (let i = 0; i < 3 && mine.kind === "wait"; i++) {
          at = mine.until;
          mine = await s.journal.admit(todayIntent, ME, at);
        }
        if (mine.kind !== "go") throw new Error(mine.kind);
        const today =
          mark === "close"
            ? { status: 403, outcome: "refused", closeSite: "HTTP 403 tonight" }
            : { status: 503, outcome: "error", downSite: "HTTP 503 tonight" };
        expect(
          await s.journal.complete(mine.id, ME, { ...done, ...today, endedAt: at + 500 }),
        ).toBe(true);
        const said =
          mark === "close"
            ? { kind: "closed", reason: "HTTP 403 tonight" }
            : { kind: "down", reason: "HTTP 503 tonight" };
        const next = intent("https://www.a.gov/later", { night: NEXT });
        expect(await s.journal.admit(next, ME, T1 + 60_000)).toEqual(said);
        const token = await s.journal.rulesNow("a.gov");
        // The frozen worker wakes and its answer (the night before's) says the site's word then.
        const old =
          mark === "close"
            ? { status: 403, closeSite: "HTTP 403 the night before" }
            : { status: 503, downSite: "HTTP 503 the night before" };
        if (via === "wait") await s.journal.waitAsked(frozen.id, old);
        else
          await s.journal.complete(frozen.id, OTHER_HOST, {
            ...done,
            ...old,
            outcome: mark === "close" ? "refused" : "error",
            endedAt: at + 1000,
          });
        // The later night's word stands: the site is still closed (or down) tonight, as said.
        expect(await s.journal.admit(next, ME, T1 + 120_000)).toEqual(said);
        expect(await s.journal.rulesNow("a.gov")).toBe(token);
      } finally {
        await s.close();
      }
    },
  );

  it("P27: a row taken over whose late completion read nothing of the site (cut off by a stop, or a step below threw, before any head came) is not said answered: it stays as the new holder marked it, while the site keeps the stop's hold", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/frozen";
      const { frozen, at } = await frozenAndTakenOver(s, url);
      const end = at + 5000;
      await s.journal.complete(frozen.id, OTHER_HOST, {
        status: null,
        outcome: "interrupted",
        failure: "stopped: This operation was aborted",
        bytes: 0,
        final: false,
        closedEarly: false,
        endedAt: end,
        retryAtIfNone: end + 5000,
        siteNotBefore: end + 5000,
      });
      const row = (await s.entries()).find((r) => r.url === url);
      expect(row).toMatchObject({
        outcome: "interrupted",
        status: null,
        endedAt: null,
        failure: DIED_IN_FLIGHT,
      });
      // The site still holds as the stop asked (P15: the stricter side).
      const next = await s.journal.admit(intent("https://www.a.gov/other"), ME, end + 10);
      expect(next).toMatchObject({ kind: "wait", until: end + 5000 });
    } finally {
      await s.close();
    }
  });

  it("P15: a wait the head asked for holds past the death of the process reading its body: the site held, the attempt counted as the try it was", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/slow-503";
      const a = await s.journal.admit(intent(url), DEAD, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      // A 503 with Retry-After: 8 came at T0 + 50; its body never ended (the process died).
      await s.journal.waitAsked(a.id, {
        status: 503,
        retryAt: T0 + 8050,
        siteNotBefore: T0 + 8050,
      });
      // Another page of the site, and the same request, wait for the hold, not the gap alone:
      // the crash is found at T0 + 1000, when the answer ended at the latest, so the 8 s (at
      // most the 8,050 ms from the request's start to the end of the wait) count from then.
      expect(await s.journal.admit(intent("https://www.a.gov/other"), ME, T0 + 1000)).toMatchObject(
        { kind: "wait" },
      );
      expect(await s.journal.admit(intent(url), ME, T0 + 8050)).toMatchObject({
        kind: "wait",
        until: T0 + 9050,
      });
      expect(await s.journal.admit(intent("https://www.a.gov/other"), ME, T0 + 8050)).toMatchObject(
        { kind: "wait", until: T0 + 9050 },
      );
      expect(await s.journal.admit(intent(url), ME, T0 + 9050)).toMatchObject({
        kind: "go",
        attempt: 2,
      });
    } finally {
      await s.close();
    }
  });

  it("P15: a send the checker's own stop cut short waits as after a connection closed early (retryAtIfNone), unless its head asked for a wait, which is kept", async () => {
    const s = await m.make();
    try {
      const stopped = {
        status: null,
        outcome: "interrupted",
        failure: "stopped: the command was stopped (SIGTERM)",
        bytes: 0,
        final: false,
        closedEarly: false,
      } as const;
      const a = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.complete(a.id, ME, {
        ...stopped,
        endedAt: T0 + 100,
        retryAtIfNone: T0 + 5100,
        siteNotBefore: T0 + 5100,
      });
      // The same request, and the site's other pages, wait for 5 s from the cut, not the gap.
      expect(await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 2200)).toMatchObject({
        kind: "wait",
        until: T0 + 5100,
      });
      expect(await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2200)).toMatchObject({
        kind: "wait",
        until: T0 + 5100,
      });
      expect(await s.journal.admit(intent("https://www.a.gov/1"), ME, T0 + 5100)).toMatchObject({
        kind: "go",
        attempt: 2,
      });
      // A head that asked for 8 s before the stop cut its body: its wait is the one kept.
      const b = await s.journal.admit(intent("https://www.b.gov/1"), ME, T0);
      if (b.kind !== "go") throw new Error(b.kind);
      await s.journal.waitAsked(b.id, {
        status: 503,
        retryAt: T0 + 8050,
        siteNotBefore: T0 + 8050,
      });
      await s.journal.complete(b.id, ME, {
        ...stopped,
        status: 503,
        endedAt: T0 + 100,
        retryAtIfNone: T0 + 5100,
        siteNotBefore: T0 + 5100,
      });
      expect(await s.journal.admit(intent("https://www.b.gov/1"), ME, T0 + 5100)).toMatchObject({
        kind: "wait",
        until: T0 + 8050,
      });
    } finally {
      await s.close();
    }
  });

  it("P15, P21: what a head decided for the night holds past a crash: not asked again tonight, a 429 past its retries closes the site", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/busy";
      const a = await s.journal.admit(intent(url), DEAD, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.waitAsked(a.id, {
        status: 429,
        retryAt: LATEST_HOLD_MS,
        closeSite: "HTTP 429 (retry-after-unreadable)",
      });
      // The site is closed at once; the request is not asked again tonight in any case.
      expect(await s.journal.admit(intent("https://www.a.gov/other"), ME, T0 + 5000)).toEqual({
        kind: "closed",
        reason: "HTTP 429 (retry-after-unreadable)",
      });
      const b = await s.journal.admit(intent("https://www.b.gov/x"), DEAD, T0);
      if (b.kind !== "go") throw new Error(b.kind);
      await s.journal.waitAsked(b.id, { status: 503, retryAt: LATEST_HOLD_MS });
      await s.journal.admit(intent("https://www.b.gov/y"), ME, T0 + 100); // finds the crash
      // Its head's word stands: not asked again, an error, never "the night's time ran out".
      expect(await s.journal.admit(intent("https://www.b.gov/x"), ME, T0 + 60_000)).toEqual({
        kind: "done-tonight",
      });
      // The site's other pages are not held by it: only that request is over for tonight.
      expect((await s.journal.admit(intent("https://www.b.gov/y"), ME, T0 + 60_000)).kind).toBe(
        "go",
      );
    } finally {
      await s.close();
    }
  });

  it("P15: an attempt completed as interrupted (a step below threw) keeps the retry time its head wrote, and counts as a try", async () => {
    const s = await m.make();
    try {
      const url = "https://www.a.gov/full-disk";
      const a = await s.journal.admit(intent(url), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.waitAsked(a.id, {
        status: 503,
        retryAt: T0 + 8050,
        siteNotBefore: T0 + 8050,
      });
      await s.journal.complete(a.id, ME, {
        status: 503,
        outcome: "interrupted",
        failure: "internal: ENOSPC",
        bytes: 10,
        final: false,
        closedEarly: false,
        endedAt: T0 + 100,
      });
      expect(await s.journal.admit(intent(url), ME, T0 + 8050)).toMatchObject({
        kind: "go",
        attempt: 2,
      });
    } finally {
      await s.close();
    }
  });

  it("P15: a wait asked for after the attempt completed changes nothing (its completion has the word)", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/1"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.complete(a.id, ME, { ...done, status: 200, endedAt: T0 + 5 });
      await s.journal.waitAsked(a.id, {
        status: 503,
        retryAt: T0 + 60_000,
        siteNotBefore: T0 + 60_000,
      });
      expect((await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 2100)).kind).toBe("go");
    } finally {
      await s.close();
    }
  });

  it("P21: a no closes the site that said it for the night only; Retry-After holds the site", async () => {
    const s = await m.make();
    try {
      const a = await s.journal.admit(intent("https://www.a.gov/x"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.complete(a.id, ME, {
        ...done,
        status: 403,
        outcome: "refused",
        endedAt: T0 + 5,
        closeSite: "HTTP 403",
      });
      expect(await s.journal.admit(intent("https://cdn.a.gov/y"), ME, T0 + 9000)).toEqual({
        kind: "closed",
        reason: "HTTP 403",
      });
      expect((await s.journal.admit(intent("https://www.b.gov/y"), ME, T0 + 9000)).kind).toBe("go");
      const tomorrow = intent("https://www.a.gov/z", { night: "2026-11-06" });
      expect((await s.journal.admit(tomorrow, ME, T0 + 86_400_000)).kind).toBe("go");

      const c = await s.journal.admit(intent("https://www.c.gov/x"), ME, T0);
      if (c.kind !== "go") throw new Error(c.kind);
      await s.journal.complete(c.id, ME, {
        ...done,
        status: 503,
        outcome: "error",
        endedAt: T0 + 5,
        siteNotBefore: T0 + 3_600_005,
      });
      expect(await s.journal.admit(intent("https://www.c.gov/other"), ME, T0 + 9000)).toMatchObject(
        { kind: "wait", until: T0 + 3_600_005 },
      );
      const tonightOnly = intent("https://www.c.gov/other", { deadline: T0 + 1_800_000 });
      expect((await s.journal.admit(tonightOnly, ME, T0 + 9000)).kind).toBe("not-tonight");
    } finally {
      await s.close();
    }
  });

  it("owners' requests: a longer gap, a path left alone (robots.txt still read), the site not read", async () => {
    const s = await m.make();
    try {
      await s.rule("a.gov", { kind: "gap", gapMs: 30_000, reason: "slower", at: T0 });
      await s.rule("a.gov", { kind: "leave-alone", prefix: "/permits/", reason: "no", at: T0 });
      const a = await s.journal.admit(intent("https://www.a.gov/list"), ME, T0);
      if (a.kind !== "go") throw new Error(a.kind);
      await s.journal.complete(a.id, ME, { ...done, endedAt: T0 + 5 });
      expect(await s.journal.admit(intent("https://www.a.gov/2"), ME, T0 + 3000)).toMatchObject({
        kind: "wait",
        until: T0 + 30_006,
      });
      expect(
        (await s.journal.admit(intent("https://www.a.gov/permits/9"), ME, T0 + 40_000)).kind,
      ).toBe("left-alone");
      // robots.txt itself is still read; a robots.txt request redirected into the path left
      // alone is judged by it, as any request.
      const hop = intent("https://www.a.gov/permits/robots.txt", { purpose: "robots" });
      expect((await s.journal.admit(hop, ME, T0 + 40_000)).kind).toBe("left-alone");
      const robots = intent("https://www.a.gov/robots.txt", { purpose: "robots" });
      expect((await s.journal.admit(robots, ME, T0 + 40_000)).kind).toBe("go");
      await s.rule("b.gov", { kind: "not-read", reason: "owner asked", at: T0 });
      const closed = await s.journal.admit(intent("https://b.gov/robots.txt"), ME, T0);
      expect(closed.kind).toBe("closed");
      if (closed.kind === "closed") expect(closed.reason).toMatch(/owner asked not to be read/);
    } finally {
      await s.close();
    }
  });
});

describe.each(factories)("the journal's sweep: $name", (factory) => {
  it("P27, P13: another host's row in flight is interrupted once its site lease has run out, with no admission after it", async () => {
    const store: Store = await openStore(await factory.migrated());
    try {
      const journal = new SqlJournal(store.db);
      // A worker on another machine, sharing this PostgreSQL (or this file), dies mid-request.
      const away = "another-host.example:4242:away01";
      expect((await journal.admit(intent("https://www.a.gov/1"), away, T0)).kind).toBe("go");
      // Its lease still runs: it may be alive, so the row stays in flight.
      expect(await journal.sweep(T0 + 1_000)).toBe(0);
      // Past the lease (the night's deadline came first: nobody asks for the site again).
      expect(await journal.sweep(T0 + REQUEST_LEASE_MS + 1)).toBe(1);
      const rows = await store.db
        .selectFrom("request_log")
        .select(["outcome", "failure"])
        .execute();
      // Said as what is known: it may have left or been about to (it counts as sent, P15).
      expect(rows).toEqual([{ outcome: "interrupted", failure: DIED_IN_FLIGHT }]);
    } finally {
      await store.close();
    }
  });
});
