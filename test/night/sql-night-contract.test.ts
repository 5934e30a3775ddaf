import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { buildSimulation, runSimulatedNight, type SimSite } from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";
import { clearFlag, listFlags, markSource, statusRows } from "../../src/store/admin.js";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { postgresUrl, type StoreFactory, storeFactories } from "../store/stores.js";

/**
 * The night's SQL store is one code path over two dialects. The same short simulated run —
 * three nights of the real scheduler and fetcher in virtual time, with a person's mark and a
 * cleared flag — goes through SqlNightStore, SqlRobotsCache, SqlJournal and SqlRequestLog
 * on SQLite and on PostgreSQL (a fresh schema, dropped after), and must leave the same rows:
 * outcomes with their way choice, records, flags, status and the history the next night
 * plans from. Virtual times are left out of the comparison: database latency is real time.
 */
const FIRST = "2026-11-05";
const DAY = 24 * 3600_000;

const sites = (): SimSite[] => [
  { site: "ok.org", latencyMs: 100, sources: 2, olderPages: 1 },
  { site: "no.org", latencyMs: 100, sources: 1, saysNo: true },
  { site: "down.org", latencyMs: 100, sources: 1, robotsStatus: 500 },
  { site: "alt.org", latencyMs: 100, sources: 1, robotsTxt: "User-agent: *\nDisallow: /api/\n" },
];

async function scenario(loc: StoreLocation) {
  const store = await openStore(loc);
  try {
    const db = store.db;
    const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
    const sim = buildSimulation(clock, sites());
    // P4: alt.org lists an API robots.txt disallows, before its feed.
    const alt = sim.catalog.sources.find((s) => s.id === "alt.org/0");
    alt?.alternates.push({ access: "api", url: "https://www.alt.org/api/list" });
    const nightStore = new SqlNightStore(db);
    const ports = {
      journal: new SqlJournal(db),
      robotsCache: new SqlRobotsCache(db),
      log: new SqlRequestLog(db),
    };
    const summaries = [];
    for (let d = 0; d < 3; d++) {
      if (d > 0) await clock.advance(DAY);
      if (d === 1) {
        await markSource(db, {
          source: "ok.org/1",
          reading: false,
          reason: "asked to stop",
          by: "tester",
          at: clock.now(),
          night: FIRST,
        });
      }
      const s = await runSimulatedNight(clock, sim, nightStore, {
        night: addDays(FIRST, d),
        deadlineMs: 6 * 3600_000,
        concurrency: 1,
        ...ports,
      });
      summaries.push({ ...s, deadlineAt: 0 });
    }
    const answers = (await listFlags(db, false)).find((f) => f.kind === "answers-again");
    if (answers) await clearFlag(db, answers.id, "tester", clock.now());

    const outcomes = await db
      .selectFrom("night_sources")
      .select([
        "night",
        "source_id",
        "outcome",
        "reason",
        "status",
        "url",
        "way",
        "records_found",
        "new_records",
      ])
      .orderBy("night")
      .orderBy("source_id")
      .execute();
    const records = await db
      .selectFrom("records")
      .select(["source_id", "record_id", "title", "first_seen_night"])
      .orderBy("source_id")
      .orderBy("record_id")
      .execute();
    const flags = (await listFlags(db, true)).map(({ raisedAt: _r, clearedAt, ...f }) => ({
      ...f,
      cleared: clearedAt !== null,
    }));
    const ids = sim.catalog.sources.map((s) => s.id);
    const histories = [...(await nightStore.histories(addDays(FIRST, 3), ids))].map(
      ([id, { lastCheckedAt, lastDurationMs, ...h }]) => ({
        id,
        ...h,
        checked: typeof lastCheckedAt === "number" && typeof lastDurationMs === "number",
      }),
    );
    const robots = [];
    for (const o of ["https://www.ok.org", "https://www.down.org", "https://www.alt.org"]) {
      const r = await ports.robotsCache.get(o);
      robots.push({ origin: o, state: r?.state, status: r?.status, night: r?.night });
    }
    const log = (await ports.log.query()).map((e) => `${e.status} ${e.purpose} ${e.url}`).sort();
    const lastEnd = (
      await db
        .selectFrom("site_state")
        .select("last_end_at")
        .where("site", "=", "ok.org")
        .executeTakeFirst()
    )?.last_end_at;
    return {
      dialect: store.dialect,
      summaries,
      outcomes,
      records,
      flags,
      status: await statusRows(db),
      histories,
      robots,
      log,
      lastEndIsTime: typeof lastEnd === "string" && Date.parse(lastEnd) > 0,
      validators: await nightStore.get("https://www.ok.org/list/0?page=0"),
    };
  } finally {
    await store.close();
  }
}

type Snapshot = Awaited<ReturnType<typeof scenario>>;

const factories = storeFactories();

let sqliteRun: Promise<Snapshot> | undefined;
const sqliteSnapshot = () => {
  sqliteRun ??= (factories[0] as StoreFactory).fresh().then(scenario);
  return sqliteRun;
};

describe("the night's SQL store, the same on SQLite and PostgreSQL", () => {
  it("P4, P23, P24, P25: on SQLite, three simulated nights leave the outcomes, way choices, flags and status expected", async () => {
    const s = await sqliteSnapshot();
    const kinds = s.outcomes.map((o) => `${o.night} ${o.source_id} ${o.outcome}`);
    expect(kinds).toEqual([
      "2026-11-05 alt.org/0 ok",
      "2026-11-05 down.org/0 robots-unavailable",
      "2026-11-05 no.org/0 refused",
      "2026-11-05 ok.org/0 ok",
      "2026-11-05 ok.org/1 ok",
      "2026-11-06 alt.org/0 ok",
      "2026-11-06 down.org/0 robots-unavailable",
      "2026-11-06 no.org/0 refused",
      "2026-11-06 ok.org/0 ok",
      "2026-11-06 ok.org/1 recheck-answers",
      "2026-11-07 alt.org/0 ok",
      "2026-11-07 down.org/0 robots-unavailable",
      "2026-11-07 no.org/0 refused",
      "2026-11-07 ok.org/0 ok",
      "2026-11-07 ok.org/1 recheck-answers",
    ]);
    const alt = s.outcomes.find((o) => o.source_id === "alt.org/0");
    expect(JSON.parse(alt?.way ?? "null")).toEqual({
      used: { access: "feed", url: "https://www.alt.org/list/0?page=0" },
      skipped: [
        { access: "api", url: "https://www.alt.org/api/list", why: "disallowed by robots.txt" },
      ],
      // The reader that read the list (page-key.ts readerKey: night-records.ts readsBefore).
      reader: expect.any(String),
    });
    // P18: the disallowed API was never asked.
    expect(s.log.some((l) => l.includes("/api/"))).toBe(false);
    expect(
      s.flags
        .map((f) => `${f.source} ${f.kind} ${f.night} ${f.cleared ? "cleared" : "open"}`)
        .sort(),
    ).toEqual([
      "down.org/0 no-three-nights 2026-11-07 open",
      "no.org/0 no-three-nights 2026-11-07 open",
      "ok.org/1 answers-again 2026-11-06 cleared",
    ]);
    // P7: ok.org/0 read page 1 and its one older page the first night; 2 + 2 records.
    expect(s.records.filter((r) => r.source_id === "ok.org/0")).toHaveLength(4);
    // P25: the recheck nights took no records for ok.org/1 beyond the first night's.
    expect(s.records.filter((r) => r.source_id === "ok.org/1")).toHaveLength(4);
    const ok1 = s.status.find((r) => r.id === "ok.org/1");
    expect(ok1).toMatchObject({ reading: false, notReadReason: "asked to stop", flags: [] });
    const h = s.histories.find((x) => x.id === "no.org/0");
    expect(h).toMatchObject({
      reading: true,
      doneTonight: false,
      recentOutcomes: ["refused", "refused", "refused"],
      checked: true,
    });
    expect(s.histories.find((x) => x.id === "ok.org/0")?.backfill).toEqual({
      done: true,
      pagesRead: 1,
      // P7: why it ended, and the night that committed its end.
      ended: { why: "last-page", night: FIRST },
    });
    expect(s.histories.find((x) => x.id === "ok.org/1")).toMatchObject({
      reading: false,
      markedNight: FIRST,
    });
    expect(s.robots.find((r) => r.origin === "https://www.down.org")).toMatchObject({
      status: 500,
    });
    expect(s.lastEndIsTime).toBe(true);
  }, 60_000);

  it.skipIf(!postgresUrl)(
    "P4, P23, P24, P25: on PostgreSQL the same run leaves the same rows as on SQLite",
    async () => {
      const pgFactory = factories[1] as StoreFactory;
      const pgSnap = await scenario(await pgFactory.fresh());
      const lite = await sqliteSnapshot();
      expect([pgSnap.dialect, lite.dialect]).toEqual(["postgres", "sqlite"]);
      expect({ ...pgSnap, dialect: "-" }).toEqual({ ...lite, dialect: "-" });
    },
    60_000,
  );
});
