import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nightLine } from "../../src/cli/commands/status.js";
import { closingTime } from "../../src/policy/night-date.js";
import { recentNights, resumableNight, settleUnfinishedNights } from "../../src/store/admin.js";
import { openStore, type Store } from "../../src/store/db.js";

/**
 * P13: how long an interrupted night may be resumed is one rule, read by `nor night` (which
 * resumes it or closes it), `nor start` (which resumes it at start and after a crash) and `nor
 * status` (which says until when): its own deadline, never more than 24 h after it began,
 * whatever the schedule that started it. It was cut at 01:00 New York the next date as if every
 * night ran on the default schedule, so a night of `nor start --at 20:00 --deadline 20h` was
 * closed as incomplete at 01:00 while `nor status` said it could be resumed until its deadline.
 */
const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function storeWith(
  rows: { night: string; startedAt: number; deadlineAt: number; finishedAt?: number }[],
): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), "nor-night-time-"));
  dirs.push(dir);
  const store = await openStore({ kind: "sqlite", dir });
  for (const r of rows) {
    await store.db
      .insertInto("nights")
      .values({
        night: r.night,
        started_at: iso(r.startedAt),
        deadline_at: iso(r.deadlineAt),
        finished_at: r.finishedAt === undefined ? null : iso(r.finishedAt),
        runs: 1,
      })
      .execute();
  }
  return store;
}

async function nightsTable(store: Store) {
  return store.db
    .selectFrom("nights")
    .select(["night", "deadline_at", "finished_at"])
    .orderBy("started_at")
    .execute();
}

describe("how long an interrupted night may be resumed (P13)", () => {
  // `nor start --at 20:00 --deadline 20h`: the night of Dec 4 began at 20:00 New York
  // (01:00Z Dec 5), its deadline 16:00 New York on Dec 5 (21:00Z).
  const started = Date.UTC(2026, 11, 5, 1, 0);
  const deadline = Date.UTC(2026, 11, 5, 21, 0);
  const testerTime = Date.UTC(2026, 11, 5, 19, 14);

  it("P13: a night begun at 20:00 with a 20 h deadline is resumed until that deadline, past 01:00 New York; nor night, nor start and nor status agree; then it is closed at it", async () => {
    const store = await storeWith([
      { night: "2026-12-04", startedAt: started, deadlineAt: deadline },
    ]);
    try {
      expect(closingTime(iso(started), iso(deadline), "2026-12-04")).toBe(deadline);
      // `nor night` (settles, then resumes) and `nor start` (resumableNight) at 19:14Z.
      const settled = await settleUnfinishedNights(store.db, testerTime);
      expect(settled.closed).toEqual([]);
      expect(settled.resumable).toMatchObject({ night: "2026-12-04", until: deadline });
      expect(await resumableNight(store.db, testerTime)).toMatchObject({
        night: "2026-12-04",
        until: deadline,
      });
      // `nor status`: resumable until that same moment.
      const [row] = await recentNights(store.db, 3);
      expect(row?.until).toBe(iso(deadline));
      expect(nightLine(row as NonNullable<typeof row>, testerTime)).toContain(
        `under way or stopped (deadline ${iso(deadline)}); 0 sources with an outcome; \`nor night\` resumes it until then`,
      );
      // A minute before 01:00 New York and just after it, alike.
      for (const t of [Date.UTC(2026, 11, 5, 5, 59), Date.UTC(2026, 11, 5, 6, 1)])
        expect((await resumableNight(store.db, t))?.night).toBe("2026-12-04");

      // At its deadline its time is over, for all three: closed at the deadline, as incomplete.
      expect(await resumableNight(store.db, deadline)).toBeUndefined();
      expect(nightLine(row as NonNullable<typeof row>, deadline)).toContain(
        "its time is over: the next `nor night` closes it as incomplete",
      );
      const later = await settleUnfinishedNights(store.db, deadline + HOUR);
      expect(later.resumable).toBeUndefined();
      expect(later.closed.map((c) => [c.night, c.finishedAt])).toEqual([
        ["2026-12-04", iso(deadline)],
      ]);
      expect(await nightsTable(store)).toEqual([
        { night: "2026-12-04", deadline_at: iso(deadline), finished_at: iso(deadline) },
      ]);
      const [closed] = await recentNights(store.db, 3);
      expect(closed?.closedIncomplete).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("P13: a night begun at 23:00 New York with the default 6 h deadline is resumed at 01:30, not closed at 01:00", async () => {
    // 23:00 New York on Dec 4 is 04:00Z Dec 5; 01:30 New York on Dec 5 is 06:30Z.
    const begun = Date.UTC(2026, 11, 5, 4, 0);
    const store = await storeWith([
      { night: "2026-12-04", startedAt: begun, deadlineAt: begun + 6 * HOUR },
    ]);
    try {
      const at = Date.UTC(2026, 11, 5, 6, 30);
      const settled = await settleUnfinishedNights(store.db, at);
      expect(settled.closed).toEqual([]);
      expect(settled.resumable?.night).toBe("2026-12-04");
      expect((await resumableNight(store.db, at))?.until).toBe(begun + 6 * HOUR);
    } finally {
      await store.close();
    }
  });

  it("P13: never more than 24 h after it began, whatever its deadline says", async () => {
    const store = await storeWith([
      { night: "2026-12-04", startedAt: started, deadlineAt: started + 30 * HOUR },
    ]);
    try {
      expect((await resumableNight(store.db, started + 23 * HOUR))?.until).toBe(
        started + 24 * HOUR,
      );
      expect(await resumableNight(store.db, started + 24 * HOUR)).toBeUndefined();
      const settled = await settleUnfinishedNights(store.db, started + 25 * HOUR);
      expect(settled.closed.map((c) => c.finishedAt)).toEqual([iso(started + 24 * HOUR)]);
    } finally {
      await store.close();
    }
  });

  it("P13: the next night's start, where it is known, ends it sooner: a night of a later date begun, or, for a plain nor night, tonight's beginning after a night asked for by a past date; its deadline then is its closing moment", async () => {
    const now = Date.UTC(2026, 11, 5, 19, 0);
    const store = await storeWith([
      // Asked for by a past date an hour ago: its own date was over before it began.
      { night: "2026-11-20", startedAt: now - HOUR, deadlineAt: now + 5 * HOUR },
    ]);
    try {
      // Its name resumes it until its deadline (a stop, a full disk mended): nothing closed.
      const byName = await settleUnfinishedNights(store.db, now, [], "2026-11-20");
      expect(byName.closed).toEqual([]);
      expect(byName.resumable).toMatchObject({ night: "2026-11-20", until: now + 5 * HOUR });
      const [open] = await recentNights(store.db, 3);
      expect(nightLine(open as NonNullable<typeof open>, now)).toContain(
        "asked for by a past date: `nor night --night 2026-11-20` resumes it until then, and a plain `nor night` closes it as incomplete and begins tonight's",
      );
      // A plain `nor night` (or `nor start`) does not resume it: tonight's night begins.
      expect(await resumableNight(store.db, now)).toBeUndefined();
      const settled = await settleUnfinishedNights(store.db, now);
      expect(settled.resumable).toBeUndefined();
      expect(settled.closed).toEqual([
        {
          night: "2026-11-20",
          startedAt: iso(now - HOUR),
          deadlineAt: iso(now - HOUR),
          finishedAt: iso(now - HOUR),
        },
      ]);
      // Closed at its start, and its deadline with it: nothing is asked in it from then on.
      expect(await nightsTable(store)).toEqual([
        { night: "2026-11-20", deadline_at: iso(now - HOUR), finished_at: iso(now - HOUR) },
      ]);
      const [row] = await recentNights(store.db, 3);
      expect(row?.closedIncomplete).toBe(true);
    } finally {
      await store.close();
    }
    // A night whose deadline is still ahead, but a later night has begun (and finished) since.
    const later = await storeWith([
      { night: "2026-12-04", startedAt: started, deadlineAt: deadline },
      {
        night: "2026-12-05",
        startedAt: started + 5 * HOUR,
        deadlineAt: started + 11 * HOUR,
        finishedAt: started + 6 * HOUR,
      },
    ]);
    try {
      const at = started + 7 * HOUR;
      expect(await resumableNight(later.db, at)).toBeUndefined();
      const [, first] = await recentNights(later.db, 3);
      expect(first?.until).toBe(iso(started + 5 * HOUR));
      expect(nightLine(first as NonNullable<typeof first>, at)).toContain(
        `its time ended at ${iso(started + 5 * HOUR)}, when a night of a later date began: the next \`nor night\` closes it as incomplete`,
      );
      // Asked for by its name, alike.
      expect(
        (await settleUnfinishedNights(later.db, at, ["2026-12-04"], "2026-12-04")).resumable,
      ).toBeUndefined();
      const settled = await settleUnfinishedNights(later.db, at);
      expect(settled.resumable).toBeUndefined();
      expect(settled.closed.map((c) => [c.night, c.finishedAt, c.deadlineAt])).toEqual([
        ["2026-12-04", iso(started + 5 * HOUR), iso(started + 5 * HOUR)],
      ]);
      const nights = await recentNights(later.db, 3);
      expect(nights.map((n) => [n.night, n.closedIncomplete])).toEqual([
        ["2026-12-05", false],
        ["2026-12-04", true],
      ]);
    } finally {
      await later.close();
    }
  });

  it("a night an earlier version closed at 01:00 New York, before its deadline, still reads as closed incomplete", async () => {
    const store = await storeWith([
      {
        night: "2026-12-04",
        startedAt: started,
        deadlineAt: deadline,
        finishedAt: Date.UTC(2026, 11, 5, 6, 0),
      },
    ]);
    try {
      const [row] = await recentNights(store.db, 3);
      expect(row?.closedIncomplete).toBe(true);
      expect(row?.until).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
