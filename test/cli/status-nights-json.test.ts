/**
 * `nor status` ends its table with the last nights (finished, under way or stopped, closed
 * incomplete: P13); `nor status --json` printed the sources only, so a script could not tell
 * whether last night finished. `--json --with-nights` prints both, the nights with the facts of
 * their lines in the table under stable names; `--json` alone stays the array of sources that
 * scripts read.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { runMain } from "./cli-capture.js";

const at = (iso: string) => `${iso}.000Z`;

/** What each night's seeded rows say, newest first, as `--with-nights` should print them. */
const NIGHTS = [
  {
    night: "2026-11-05",
    state: "unfinished",
    startedAt: at("2026-11-05T06:00:00"),
    deadlineAt: at("2026-11-05T12:00:00"),
    finishedAt: null,
    checked: 1,
    unreached: 0,
    cutShort: 0,
    catalogNote: null,
  },
  {
    night: "2026-11-04",
    state: "finished",
    startedAt: at("2026-11-04T06:00:00"),
    deadlineAt: at("2026-11-04T12:00:00"),
    finishedAt: at("2026-11-04T07:30:00"),
    checked: 3,
    unreached: 0,
    cutShort: 0,
    catalogNote: null,
  },
  {
    // Closed by settleUnfinishedNights at its deadline: interrupted and not resumed in time.
    night: "2026-11-03",
    state: "closed-incomplete",
    startedAt: at("2026-11-03T06:00:00"),
    deadlineAt: at("2026-11-03T12:00:00"),
    finishedAt: at("2026-11-03T12:00:00"),
    checked: 3,
    unreached: 2,
    cutShort: 0,
    catalogNote: null,
  },
] as const;

describe("nor status --json --with-nights", () => {
  let dir: string;
  let empty: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-status-nights-"));
    empty = join(dir, "empty");
    const data = join(dir, "data");
    await (await openStore({ kind: "sqlite", dir: empty })).close();
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const ids = ["s1", "s2", "s3"];
      await store.db
        .insertInto("night_catalog")
        .values(
          ids.map((id) => ({
            source_id: id,
            government: "village-of-test",
            url: `http://127.0.0.2/${id}`,
            site: "127.0.0.2",
            updated_at: at("2026-11-01T00:00:00"),
          })),
        )
        .execute();
      // A fourth, older night: the table and the JSON show the last three only.
      const older = {
        night: "2026-11-02",
        started_at: at("2026-11-02T06:00:00"),
        deadline_at: at("2026-11-02T12:00:00"),
        finished_at: at("2026-11-02T06:30:00"),
        runs: 1,
      };
      await store.db
        .insertInto("nights")
        .values([
          older,
          ...NIGHTS.map((n) => ({
            night: n.night,
            started_at: n.startedAt,
            deadline_at: n.deadlineAt,
            finished_at: n.finishedAt,
            runs: 1,
          })),
        ])
        .execute();
      const outcome = (night: string, id: string, kind: string) => ({
        night,
        source_id: id,
        outcome: kind,
        reason: null,
        evidence: null,
        status: kind === "ok" ? 200 : null,
        url: null,
        way: null,
        records_found: 0,
        new_records: 0,
        started_at: at(`${night}T06:10:00`),
        ended_at: at(`${night}T06:10:01`),
        duration_ms: 1000,
      });
      await store.db
        .insertInto("night_sources")
        .values([
          ...ids.map((id) => outcome("2026-11-02", id, "ok")),
          outcome("2026-11-03", "s1", "ok"),
          outcome("2026-11-03", "s2", "unreached"),
          outcome("2026-11-03", "s3", "unreached"),
          ...ids.map((id) => outcome("2026-11-04", id, "ok")),
          outcome("2026-11-05", "s1", "ok"),
        ])
        .execute();
    } finally {
      await store.close();
    }
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P13: prints the sources and the last three nights, each with the facts of its line in the table", async () => {
    const data = join(dir, "data");
    const r = await runMain(["status", "--data", data, "--json", "--with-nights"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sources: { id: string }[]; nights: unknown[] };
    expect(Object.keys(doc)).toEqual(["sources", "nights"]);
    expect(doc.nights).toEqual(NIGHTS);

    // The sources are exactly what `--json` alone prints, which stays a bare array.
    const plain = await runMain(["status", "--data", data, "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    const rows = JSON.parse(plain.stdout) as { id: string }[];
    expect(Array.isArray(rows)).toBe(true);
    expect(rows.map((s) => s.id)).toEqual(["s1", "s2", "s3"]);
    expect(doc.sources).toEqual(rows);

    // The table's night lines: the same nights, in the same order, saying the same things.
    const table = await runMain(["status", "--data", data]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n").slice(-NIGHTS.length);
    expect(lines.map((l) => /^night (\S+):/.exec(l)?.[1])).toEqual(NIGHTS.map((n) => n.night));
    const [unfinished, finished, closed] = lines as [string, string, string];
    expect(unfinished).toContain("under way or stopped (deadline 2026-11-05T12:00:00.000Z)");
    expect(unfinished).toContain("; 1 source with an outcome;");
    expect(finished).toContain(
      "finished 2026-11-04T07:30:00.000Z (deadline 2026-11-04T12:00:00.000Z); 3 sources with an outcome",
    );
    expect(closed).toContain("closed incomplete at 2026-11-03T12:00:00.000Z");
    expect(closed).toContain(
      "3 sources with an outcome, 2 of them not reached before the deadline; sources not reached go first next night",
    );
  });

  it("prints an empty list of nights for a store no night has run on", async () => {
    const r = await runMain(["status", "--data", empty, "--json", "--with-nights"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ sources: [], nights: [] });
  });

  it("refuses --with-nights without --json as a usage error (exit 2), before the store is read", async () => {
    const r = await runMain(["status", "--data", join(dir, "none"), "--with-nights"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--with-nights goes with --json");
    expect(r.stdout).toBe("");
  });
});
