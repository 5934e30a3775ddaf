import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { openStore } from "../../src/store/db.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { interruptedNight } from "./interrupted-night.js";

/**
 * P13 as `nor night` keeps it, in this process:
 * - a night begun at 20:00 New York with a 20 h deadline, interrupted, is resumed the next
 *   afternoon before its deadline (it was closed as incomplete at 01:00 New York, and the next
 *   date begun, while `nor status` said it could be resumed until its deadline);
 * - a night whose time is over is closed as incomplete and nothing is asked in it, however it
 *   is asked for again (it said "nothing more is asked in it", then asked); a night asked for
 *   by a past date is not over by the calendar while its deadline lasts: its name resumes it.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-time-"));
let server: Server;
const asked: string[] = [];
let catalog = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url === "/robots.txt") {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { "content-type": "application/rss+xml" })
      .end(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1/a</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>',
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Late", {
    "late-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
  });
});

afterAll(async () => {
  vi.useRealTimers();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const night = (data: string, ...more: string[]) =>
  nor(
    "night",
    ...["--catalog", catalog, "--data", data],
    ...["--allow-private-addresses", "--gap-ms", "0", ...more],
  );

const interrupted = (data: string, row: Parameters<typeof interruptedNight>[2]) =>
  interruptedNight(catalog, data, row);

async function nightsOf(data: string) {
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    const nights = await store.db
      .selectFrom("nights")
      .select(["night", "started_at", "deadline_at", "finished_at"])
      .orderBy("started_at")
      .execute();
    const outcomes = await store.db
      .selectFrom("night_sources")
      .select(["night", "source_id", "outcome"])
      .execute();
    return { nights, outcomes };
  } finally {
    await store.close();
  }
}

describe("nor night and a night begun at 20:00 New York with a 20 h deadline", () => {
  it("P13: interrupted, it is resumed at 14:14 the next day (before its deadline), as nor status says; no other night starts beside it", async () => {
    const data = join(dir, "late");
    // The clock of the outside testers' report: 19:14Z on Dec 5 (14:14 New York). Only Date
    // is faked (timers are real), moving on with real time.
    vi.useFakeTimers({
      toFake: ["Date"],
      now: Date.UTC(2026, 11, 5, 19, 14),
      shouldAdvanceTime: true,
    });
    try {
      await interrupted(data, {
        night: "2026-12-04",
        startedAt: "2026-12-05T01:00:00.000Z",
        deadlineAt: "2026-12-05T21:00:00.000Z",
      });
      const status = await nor("status", "--data", data);
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(
        "night 2026-12-04: under way or stopped (deadline 2026-12-05T21:00:00.000Z); 0 sources with an outcome; `nor night` resumes it until then",
      );
      // Today's date asked for by name: refused while that night may still be resumed.
      const before = asked.length;
      const beside = await night(data, "--night", "2026-12-05");
      expect(beside.code, beside.stderr).toBe(1);
      expect(beside.stderr).toContain(
        "night 2026-12-04 is under way on this store (its time runs to",
      );
      expect(asked.length).toBe(before);
      // A plain `nor night` resumes it.
      const r = await night(data);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain("not resumed in time");
      expect(r.stderr).not.toContain("closed as incomplete");
      expect(r.stderr).toMatch(/"night":"2026-12-04".*"resumed":true.*"msg":"night start"/);
      expect(asked.slice(before)).toContain("/feed.rss");
      const { nights, outcomes } = await nightsOf(data);
      expect(nights.map((n) => n.night)).toEqual(["2026-12-04"]);
      expect(nights[0]?.finished_at).not.toBeNull();
      expect(outcomes).toEqual([{ night: "2026-12-04", source_id: "late-feed", outcome: "ok" }]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("nor night and a night whose time is over: closed as incomplete, nothing asked in it", () => {
  const HOUR = 3_600_000;

  it("P13: a night whose deadline passed, asked for again by date, records what it never reached as unreached, asks nothing, and stays closed incomplete, as it says", async () => {
    const data = join(dir, "deadline");
    const past = addDays(nightOf(Date.now()), -30);
    const began = new Date(Date.now() - 3 * HOUR).toISOString();
    const deadline = new Date(Date.now() - HOUR).toISOString();
    await interrupted(data, { night: past, startedAt: began, deadlineAt: deadline });
    const before = asked.length;
    const r = await night(data, "--night", past);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `night ${past} was interrupted and its time has passed: nothing more is asked in it; the sources it did not reach are recorded as unreached, and it is closed as incomplete`,
    );
    expect(asked.slice(before)).toEqual([]);
    const { nights, outcomes } = await nightsOf(data);
    expect(nights).toEqual([
      { night: past, started_at: began, deadline_at: deadline, finished_at: deadline },
    ]);
    expect(outcomes).toEqual([{ night: past, source_id: "late-feed", outcome: "unreached" }]);
    // `nor status` says it as that command did: closed as incomplete.
    const status = await nor("status", "--data", data, "--json", "--with-nights");
    expect(status.code, status.stderr).toBe(0);
    const doc = JSON.parse(status.stdout) as { nights: { night: string; state: string }[] };
    expect(doc.nights.map((n) => [n.night, n.state])).toEqual([[past, "closed-incomplete"]]);
    // Asked for again: over, nothing asked, nothing changed.
    const again = await night(data, "--night", past);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`night ${past} is over`);
    expect(asked.slice(before)).toEqual([]);
    expect((await nightsOf(data)).nights).toEqual(nights);
  });

  it("P13: a night asked for by a past date and stopped early is resumed by its name while its deadline lasts, without being said closed; once a plain nor night has closed it (tonight's begun), its name asks nothing in it", async () => {
    const data = join(dir, "past");
    // Asked for by a past date a minute ago, and stopped early (a full archive, say).
    const past = addDays(nightOf(Date.now()), -30);
    const began = new Date(Date.now() - 60_000).toISOString();
    const deadline = new Date(Date.now() + 6 * HOUR).toISOString();
    await interrupted(data, { night: past, startedAt: began, deadlineAt: deadline });
    // By its name: resumed (its deadline ahead), not said to be over, and it asks.
    const before = asked.length;
    const resumed = await night(data, "--night", past);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain("its time has passed");
    expect(resumed.stderr).not.toContain("closed as incomplete");
    expect(resumed.stderr).toMatch(/"resumed":true.*"msg":"night start"/);
    expect(asked.slice(before)).toContain("/feed.rss");
    expect((await nightsOf(data)).outcomes).toEqual([
      { night: past, source_id: "late-feed", outcome: "ok" },
    ]);

    // Another, stopped early the same way; a plain `nor night` closes it and begins tonight's.
    const other = join(dir, "past-plain");
    await interrupted(other, { night: past, startedAt: began, deadlineAt: deadline });
    const plain = await night(other);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      `night ${past} was interrupted and not resumed in time; closed as incomplete`,
    );
    const tonight = nightOf(Date.now());
    const closed = await nightsOf(other);
    expect(closed.nights.map((n) => [n.night, n.finished_at === null])).toEqual([
      [past, false],
      [tonight, false],
    ]);
    expect(closed.nights[0]).toEqual({
      night: past,
      started_at: began,
      deadline_at: began,
      finished_at: began,
    });
    // Its name now asks nothing in it: it is over.
    const mark = asked.length;
    const late = await night(other, "--night", past);
    expect(late.code, late.stderr).toBe(0);
    expect(late.stderr).toContain(`night ${past} is over`);
    expect(asked.slice(mark)).toEqual([]);
    expect((await nightsOf(other)).outcomes.filter((o) => o.night === past)).toEqual([]);
  });
});
