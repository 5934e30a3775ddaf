import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "../night/cli-night.js";
import { runMain as runNor } from "./cli-capture.js";

/**
 * The operator's commands against a store filled by real `nor night` runs over the loopback
 * fleet: mark a source not read, watch the next nights leave it alone except on recheck
 * nights, clear the flag the recheck raised, mark it read again. Nights are stepped with
 * `--night`; the marking night is given with `nor mark --night` so the recheck calendar
 * (P25: nights 1–3 after the mark, then every 7th) is checked on known dates.
 */
const REASON = "The clerk asked us to stop (email of 2026-11-05)";

interface StatusJson {
  id: string;
  reading: boolean;
  notReadReason?: string;
  lastNight?: string;
  lastOutcome?: string;
  recordsKnown: number;
  newLastNight: number;
  flags: string[];
  way?: { access: string; url: string };
  skipped: unknown[];
}

describe("nor mark, nor status, nor flags over real nights", () => {
  let fleet: Fleet;
  let marked: FleetServer;
  let other: FleetServer;
  let dir: string;
  let catalog: string;
  let items = 3;

  const status = async (): Promise<StatusJson[]> => {
    const r = await runNor(["status", "--data", dir, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as StatusJson[];
  };
  const row = async (id: string) => (await status()).find((s) => s.id === id) as StatusJson;
  const pagesSeen = (s: FleetServer, from: number) =>
    s.requests.slice(from).filter((r) => r.path !== "/robots.txt");

  beforeAll(async () => {
    fleet = await startFleet();
    marked = await fleet.server({ host: "127.0.0.2" });
    other = await fleet.server({ host: "127.0.0.3" });
    for (const s of [marked, other]) {
      s.route("/robots.txt", (_q, res) => void res.writeHead(200).end("User-agent: *\nAllow: /\n"));
      s.route("/agendas.rss", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(s.origin, items));
      });
    }
    dir = mkdtempSync(join(tmpdir(), "nor-mark-"));
    catalog = writeCatalog(
      dir,
      [
        ["marked-feed", marked],
        ["other-feed", other],
      ].map(([id, s]) => [
        `id: ${id as string}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${(s as FleetServer).url("/agendas.rss")}`,
      ]),
    );
    const first = await nightCli(catalog, dir, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P24: a mark without a reason, an unknown source, or neither --read nor --not-read is a usage error (exit 2) that changes nothing", async () => {
    const noReason = await runNor(["mark", "marked-feed", "--not-read", "--data", dir]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("--reason");
    const blank = await runNor([
      "mark",
      "marked-feed",
      "--not-read",
      "--reason",
      "  ",
      "--data",
      dir,
    ]);
    expect(blank.code).toBe(2);
    const unknown = await runNor([
      "mark",
      "no-such-source",
      "--not-read",
      "--reason",
      "x",
      "--data",
      dir,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"no-such-source"');
    expect((await runNor(["mark", "marked-feed", "--data", dir])).code).toBe(2);
    expect(
      (await runNor(["mark", "marked-feed", "--read", "--not-read", "--data", dir])).code,
    ).toBe(2);
    const badNight = await runNor([
      "mark",
      "marked-feed",
      "--read",
      "--night",
      "2026-02-30",
      "--data",
      dir,
    ]);
    expect(badNight.code).toBe(2);
    expect(badNight.stderr).toContain("2026-02-30");
    expect((await row("marked-feed")).reading).toBe(true);
  });

  it("P23, P26: nor status --json has one row per source with its last night, outcome, way, records and flags", async () => {
    const rows = await status();
    expect(rows.map((r) => r.id)).toEqual(["marked-feed", "other-feed"]);
    for (const r of rows) {
      expect(r).toMatchObject({
        reading: true,
        lastNight: "2026-11-05",
        lastOutcome: "ok",
        recordsKnown: 3,
        // Its first read: the three records were already listed, none new on record.
        newLastNight: 0,
        flags: [],
        way: { access: "feed" },
        skipped: [],
      });
    }
  });

  it("P24, P25, P26: marked not read it shows the reason, gets no request on an ordinary night and one request taking no records on a recheck night, which flags it; the flag is cleared by a person; marked read it is read again", async () => {
    const mark = await runNor([
      "mark",
      "marked-feed",
      "--not-read",
      "--reason",
      REASON,
      "--by",
      "tester",
      "--night",
      "2026-11-05",
      "--data",
      dir,
    ]);
    expect(mark.code, mark.stderr).toBe(0);
    expect(await row("marked-feed")).toMatchObject({ reading: false, notReadReason: REASON });
    const human = await runNor(["status", "--data", dir]);
    expect(human.stdout).toContain(`not read: ${REASON}`);
    // P26: the source stays listed with its link.
    expect(human.stdout).toContain(marked.url("/agendas.rss"));

    // 2026-11-08 is 3 nights after the mark: the last of the recheck nights soon after (P25).
    // (The two before it never ran: the recheck they owe is this one, P13.) One GET, no records.
    let seenMarked = marked.requests.length;
    const soon = await nightCli(catalog, dir, "2026-11-08");
    expect(soon.code, soon.stderr).toBe(0);
    expect(pagesSeen(marked, seenMarked).map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /agendas.rss",
    ]);
    expect(await row("marked-feed")).toMatchObject({
      lastNight: "2026-11-08",
      lastOutcome: "recheck-answers",
      recordsKnown: 3,
    });

    // 2026-11-09 is 4 nights after the mark: not a recheck night (P25), and the one before it
    // reached its recheck, so nothing at all.
    items = 5;
    seenMarked = marked.requests.length;
    let seenOther = other.requests.length;
    const ordinary = await nightCli(catalog, dir, "2026-11-09");
    expect(ordinary.code, ordinary.stderr).toBe(0);
    expect(marked.requests.slice(seenMarked)).toEqual([]);
    expect(pagesSeen(other, seenOther).map((r) => r.path)).toEqual(["/agendas.rss"]);
    expect(await row("marked-feed")).toMatchObject({ lastNight: "2026-11-08", recordsKnown: 3 });

    // 2026-11-15 is 10 nights after: a weekly recheck night. One GET of the page, no records.
    seenMarked = marked.requests.length;
    seenOther = other.requests.length;
    const recheck = await nightCli(catalog, dir, "2026-11-15");
    expect(recheck.code, recheck.stderr).toBe(0);
    const asked = pagesSeen(marked, seenMarked);
    expect(asked.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /agendas.rss"]);
    const after = await row("marked-feed");
    expect(after).toMatchObject({
      reading: false, // P24: the checker never marks it read itself
      lastNight: "2026-11-15",
      lastOutcome: "recheck-answers",
      recordsKnown: 3, // P25: it takes no records (the feed now lists 5)
      flags: ["answers-again"],
    });

    // The flag is for a person: listed, cleared with who and when, and kept.
    const list = await runNor(["flags", "--data", dir, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const flags = JSON.parse(list.stdout) as { id: string; kind: string; source: string }[];
    expect(flags.map((f) => [f.kind, f.source])).toEqual([["answers-again", "marked-feed"]]);
    const id = (flags[0] as { id: string }).id;
    const plain = await runNor(["flags", "--data", dir]);
    expect(plain.stdout).toContain(`${id}\tanswers-again\tmarked-feed`);
    const cleared = await runNor(["flags", "--clear", id, "--by", "tester", "--data", dir]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect((await runNor(["flags", "--data", dir])).stdout.trim()).toBe("no flags");
    const all = JSON.parse((await runNor(["flags", "--all", "--json", "--data", dir])).stdout) as {
      id: string;
      clearedBy: string | null;
      clearedAt: string | null;
    }[];
    expect(all).toEqual([expect.objectContaining({ id, clearedBy: "tester" })]);
    expect(all[0]?.clearedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const again = await runNor(["flags", "--clear", id, "--data", dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already cleared");
    const unknown = await runNor(["flags", "--clear", "no-such-flag", "--data", dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"no-such-flag"');
    expect((await row("marked-feed")).flags).toEqual([]);

    // A person marks it read again: the next night reads it fully.
    const resume = await runNor([
      "mark",
      "marked-feed",
      "--read",
      "--night",
      "2026-11-15",
      "--data",
      dir,
    ]);
    expect(resume.code, resume.stderr).toBe(0);
    seenMarked = marked.requests.length;
    const back = await nightCli(catalog, dir, "2026-11-16");
    expect(back.code, back.stderr).toBe(0);
    expect(pagesSeen(marked, seenMarked).map((r) => r.path)).toEqual(["/agendas.rss"]);
    expect(await row("marked-feed")).toMatchObject({
      reading: true,
      lastNight: "2026-11-16",
      lastOutcome: "ok",
      recordsKnown: 5,
      newLastNight: 2,
    });
    expect((await row("marked-feed")).notReadReason).toBeUndefined();
  }, 180_000);
});
