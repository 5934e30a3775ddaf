import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextSteps, summaryLines } from "../../src/cli/night-report.js";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { runNightWithStore } from "../../src/night/compose.js";
import { type PlannedSource, planLanes } from "../../src/night/lanes.js";
import { cutShortOutcome } from "../../src/night/outcome.js";
import type { NightOutcomeKind } from "../../src/night/types.js";
import { addDays } from "../../src/policy/night-date.js";
import { siteOf } from "../../src/policy/site.js";
import { loadCatalogWithFiles } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { nightTotals } from "../../src/store/admin.js";
import { sourcesInUse } from "../../src/store/catalog-sources.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { drive } from "../fleet/harness.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * P13, P15: a night whose time limit comes while a retry is pending. The site was asked and
 * answered 503; its retry (after Retry-After, or P15's 5 s then 20 s) would have started after
 * the deadline, so it is not sent (P13). That source was reached: its outcome says it was cut
 * short, and why, never "not reached"; like an unreached one it goes first next night.
 * Real `nor night` wiring (compose.ts: the SQL journal, request log and night store, the
 * undici transport) towards loopback servers, in virtual time: a ManualClock stepped whenever
 * everything sleeps, which the servers stamp their requests with too.
 */
const NIGHT = "2026-11-05";
const DEADLINE_MS = 15_000;
const GAP_MS = 200;

describe("P13, P15: a retry the night's time limit cuts short", () => {
  const clock = new ManualClock();
  let fleet: Fleet;
  /** 503 with Retry-After: 11 on every page (127.0.0.1, like the outside tester's). */
  let slow: FleetServer;
  /** A feed that answers, and one that answers 503 without Retry-After (5 s, then 20 s). */
  let busy: FleetServer;
  let dir: string;
  let store: Store;
  let stopDriving: () => void = () => {};

  beforeAll(async () => {
    fleet = await startFleet({ now: () => clock.now() });
    slow = await fleet.server({ host: "127.0.0.1" });
    slow.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (const p of ["/a1.rss", "/a2.rss"])
      slow.route(
        p,
        (_q, res) => void res.writeHead(503, { "retry-after": "11" }).end("busy, come back"),
      );
    busy = await fleet.server();
    busy.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    busy.route(
      "/ok.rss",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(busy.origin, 2)),
    );
    busy.route("/busy.rss", (_q, res) => void res.writeHead(503).end("busy"));
    dir = mkdtempSync(join(tmpdir(), "nor-cut-short-"));
    store = await openStore({ kind: "sqlite", dir });
    const file = writeCatalog(dir, [
      feedEntry("a1", slow.url("/a1.rss")),
      feedEntry("a2", slow.url("/a2.rss")),
      feedEntry("b0", busy.url("/ok.rss")),
      feedEntry("b1", busy.url("/busy.rss")),
    ]);
    const { catalog, origins } = loadCatalogWithFiles([file]);
    await importCatalog(store.db, catalog, origins, clock.now());
    // The feed reader is loaded when a feed is first read (lazy-reader.ts): loaded here, so
    // its loading, real time on a busy machine, is not taken by the driver for a night waiting
    // on its timers (it would move the clock on to a1's retry before b0 is read).
    await import("../../src/sources/extract/feed.js");
    await import("../../src/sources/catalog/schema.js");
    stopDriving = drive(clock);
  }, 60_000);

  afterAll(async () => {
    stopDriving();
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P13, P15: a source asked and answered 503 whose retry would start after the deadline is recorded cut short with the answer and the wait, not as unreached; the summary says so; it still goes first next night", async () => {
    const sources = (await sourcesInUse(store.db)) ?? [];
    expect(sources.map((s) => s.id)).toEqual(["a1", "a2", "b0", "b1"]);
    const startedAt = clock.now();
    const summary = await runNightWithStore(store, sources, {
      night: NIGHT,
      deadlineMs: DEADLINE_MS,
      concurrency: 2,
      clock,
      ids: randomIds,
      allowPrivateAddresses: true,
      gapMs: GAP_MS,
    });
    const deadlineAt = summary.deadlineAt;

    // P13 still: nothing started after the deadline; each 503 page was asked twice, then not
    // again (its third attempt would have started after the deadline); a2 never, its site
    // held by a1's Retry-After past the deadline.
    expect(fleet.requests.every((r) => r.startedAt <= deadlineAt)).toBe(true);
    expect(slow.hits("/a1.rss")).toHaveLength(2);
    expect(slow.hits("/a2.rss")).toHaveLength(0);
    expect(busy.hits("/busy.rss")).toHaveLength(2);
    expect(busy.hits("/ok.rss")).toHaveLength(1);

    const outcomes = new Map(
      (
        await store.db
          .selectFrom("night_sources")
          .select(["source_id", "outcome", "reason", "status"])
          .where("night", "=", NIGHT)
          .execute()
      ).map((r) => [r.source_id, r]),
    );
    const of = (id: string) => outcomes.get(id);
    expect(of("b0")?.outcome).toBe("ok");
    // Never asked: not reached, in the words of P13.
    expect(of("a2")).toMatchObject({
      outcome: "unreached",
      reason: "the night's time limit passed",
    });
    // Asked, answered, its retry cut off: said as it was.
    expect(of("a1")).toMatchObject({
      outcome: "cut-short",
      reason:
        "answered HTTP 503; its retry (in 11 s) would have started after the night's time limit",
      status: 503,
    });
    expect(of("b1")).toMatchObject({
      outcome: "cut-short",
      reason:
        "answered HTTP 503; its retry (in 20 s) would have started after the night's time limit",
      status: 503,
    });

    // The night's summary, as `nor night` prints it.
    const { outcomes: byKind, checked, newRecords, ...counts } = await nightTotals(store.db, NIGHT);
    expect(byKind).toEqual({ ok: 1, unreached: 1, "cut-short": 2 });
    const end = {
      ...summary,
      ...counts,
      outcomes: byKind as Partial<Record<NightOutcomeKind, number>>,
      planned: checked,
      newRecords,
      startedAt,
      endedAt: clock.now(),
    };
    const steps = nextSteps(end);
    expect(steps).toContain(
      "1 source not reached before the deadline: they go first next night (P13)",
    );
    expect(steps).toContain(
      "2 sources cut short: asked and answered, but a retry or next request would have started after the deadline, or (a recheck) the site its redirect leads to, or its own before its retry, was down or asked to wait (`nor status` says what each answered); those the deadline cut go first next night (P13, P15, P25)",
    );
    expect(steps.join("\n")).not.toMatch(/[2-4] sources not reached/);
    expect(summaryLines(end)).toContain("  checked:   4 sources: 1 ok, 2 cut-short, 1 unreached");

    // The source's public page says the same: cut short, with what the site answered.
    const app = createApp({ db: store.db, now: () => clock.now() });
    const page = await app.request("/sources/a1");
    expect(page.status).toBe(200);
    const text = load(await page.text())("body")
      .text()
      .replace(/\s+/g, " ");
    expect(text).toContain("cut short (the night ran out of time)");
    expect(text).toContain("answered HTTP 503; its retry (in 11 s) would have started");
    expect(text).not.toContain("not reached (the night ran out of time)");

    // P13: next night the cut-short and the unreached go first: b1 before b0 on their site,
    // and a1's site (both of its sources waiting) before b0's.
    const next = addDays(NIGHT, 1);
    const nightStore = new SqlNightStore(store.db);
    const histories = await nightStore.histories(
      next,
      sources.map((s) => s.id),
    );
    expect(histories.get("b1")?.unreachedLast).toBe(true);
    expect(histories.get("a1")?.unreachedLast).toBe(true);
    expect(histories.get("a2")?.unreachedLast).toBe(true);
    expect(histories.get("b0")?.unreachedLast).toBe(false);
    const planned: PlannedSource[] = sources.map((source) => {
      const history = histories.get(source.id);
      if (history === undefined) throw new Error(`no history for ${source.id}`);
      return { source, history };
    });
    const lanes = planLanes(planned, (s) => siteOf(s.url));
    const order = lanes.flatMap((l) => l.sources.map((p) => p.source.id));
    expect(order.indexOf("b1")).toBeLessThan(order.indexOf("b0"));
    expect(
      lanes.find((l) => l.sources.some((p) => p.source.id === "b1"))?.sources[0]?.source.id,
    ).toBe("b1");
  }, 60_000);

  it("P13, P15: the words of a cut-short source say what the site answered and what the time limit stopped, a closed connection and a redirect's hop included", () => {
    const at = Date.UTC(2026, 10, 5, 8, 0, 5);
    expect(
      cutShortOutcome({
        url: "http://127.0.0.1:8080/a.rss",
        status: null,
        outcome: "retry",
        failure: "closed: other side closed",
        endedAt: at,
        retryAt: at + 5_000,
      }),
    ).toEqual({
      kind: "cut-short",
      reason:
        "got no full answer (closed: other side closed); its retry (in 5 s) would have started after the night's time limit",
      url: "http://127.0.0.1:8080/a.rss",
    });
    expect(
      cutShortOutcome({
        url: "http://127.0.0.1:8080/old.rss",
        status: 301,
        outcome: "redirect",
        endedAt: at,
      }),
    ).toEqual({
      kind: "cut-short",
      reason: "answered HTTP 301; its next request would have started after the night's time limit",
      status: 301,
      url: "http://127.0.0.1:8080/old.rss",
    });
  });
});
