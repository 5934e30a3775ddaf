import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { oneFeedSite } from "./one-feed.js";

/**
 * `nor night` run in-process with a clock of its own (CliIo.clock, as night-dates.test.ts gives
 * one): everything the night says reads that clock, its log lines' times included, never a mix
 * of it and the machine's.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-clock-"));
let site: Awaited<ReturnType<typeof oneFeedSite>>;
let catalog = "";

beforeAll(async () => {
  site = await oneFeedSite();
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Clocks", {
    "clock-feed": `records: agendas, access: feed, url: "${site.feed}"`,
  });
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("nor night with a clock given to main", () => {
  it("its log lines (JSON, no terminal) are timed by that clock, not the machine's", async () => {
    // Three days behind the machine: a line timed by the machine's clock is far outside.
    const offset = -3 * 24 * 3_600_000;
    const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const from = clock.now();
    const r = await runMain(
      [
        "night",
        ...["--catalog", catalog, "--data", join(dir, "data")],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      ],
      { clock },
    );
    const to = clock.now();
    expect(r.code, r.stderr).toBe(0);
    const times = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => (JSON.parse(l) as { time?: unknown }).time);
    expect(times.length, r.stderr).toBeGreaterThan(0);
    for (const t of times) {
      expect(typeof t, r.stderr).toBe("number");
      expect([from <= (t as number), (t as number) <= to], `time ${t}`).toEqual([true, true]);
    }
  });
});
