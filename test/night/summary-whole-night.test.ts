import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedSites, nightCli } from "./cli-night.js";

/**
 * docs/operations.md: a night's lines end "with the night's summary: outcomes by kind, new
 * records, requests, time used, flags, what to look at next". A `nor night` that comes to a
 * night others have worked (a worker, a second command, a run after a restart) sums up the
 * whole night as the store has it, not only the sources it checked itself: it said
 * `outcomes: {}` and "nothing needs a look" of a night with refusals and pages gone.
 */
const NIGHT = "2026-11-05";
const dir = mkdtempSync(join(tmpdir(), "nor-summary-whole-"));
let fleet: Fleet;
let catalog: string;

beforeAll(async () => {
  fleet = await startFleet({ now: () => Date.now() });
  catalog = await feedSites(fleet, dir, ["ok", "refused", "gone"], 2);
});

afterAll(async () => {
  await fleet?.close();
  rmSync(dir, { recursive: true, force: true });
});

const nightDone = (stderr: string) =>
  stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l["msg"] === "night done");

describe("the summary of a night another run has worked", () => {
  it("P13, P27: counts the whole night from the store: its outcomes, new records and what to look at", async () => {
    const data = join(dir, "data");
    const first = await nightCli(catalog, data, NIGHT);
    expect(first.code, first.stderr).toBe(0);
    const whole = { ok: 2, refused: 2, gone: 2 };
    expect(nightDone(first.stderr)).toMatchObject([
      // Each source's first read: its records already listed, counted apart from the new.
      { planned: 6, alreadyDone: 0, outcomes: whole, newRecords: 0, alreadyListed: 4 },
    ]);
    const asked = fleet.requests.length;

    // The same night again, inside its time: every source is done, nothing is asked.
    const again = await nightCli(catalog, data, NIGHT);
    expect(again.code, again.stderr).toBe(0);
    expect(fleet.requests.length).toBe(asked);
    const [done] = nightDone(again.stderr);
    expect(done).toMatchObject({
      resumed: true,
      planned: 6,
      alreadyDone: 6,
      outcomes: whole,
      newRecords: 0,
      alreadyListed: 4,
      requests: asked,
    });
    expect(done?.["next"]).toEqual([
      "2 sources said no or could not be asked: `nor status` shows why",
      "2 sources failed: `nor status` and `nor log`",
    ]);

    // On a terminal, the same words.
    const tty = await runMain(
      [
        ...["night", "--catalog", catalog, "--data", data, "--night", NIGHT],
        ...["--allow-private-addresses", "--gap-ms", "50"],
      ],
      { tty: true },
    );
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toContain("  checked:   6 sources: 2 ok, 2 refused, 2 gone\n");
    expect(tty.stderr).toContain(
      "  new:       0 new records (and 4 records already listed: first reads and older pages, not new)\n",
    );
    expect(tty.stderr).not.toContain("nothing needs a look");
  });
});
