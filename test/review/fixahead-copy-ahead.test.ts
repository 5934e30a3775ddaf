import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";
import { oneFeedSite } from "../cli/one-feed.js";

/**
 * fixahead: a copy (a stored answer, P8) archived by a night run while the host's clock ran two
 * days fast carries that clock's time. A later night whose window (its start to now) takes in
 * that time must not take the copy for its own answer: it was saved by another night.
 */
const DAY = 24 * 3_600_000;
const dir = mkdtempSync(join(tmpdir(), "nor-fixahead-copy-"));
let site: Awaited<ReturnType<typeof oneFeedSite>>;
let catalog = "";

beforeAll(async () => {
  site = await oneFeedSite();
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Copy", {
    "copy-feed": `records: agendas, access: feed, url: "${site.feed}"`,
  });
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

const night = (data: string, clock: Clock, ...more: string[]) =>
  runMain(
    [
      "night",
      ...["--catalog", catalog, "--data", data],
      ...["--allow-private-addresses", "--gap-ms", "0", ...more],
    ],
    { clock },
  );

const feedAsks = () => site.asked.filter((p) => p === "/feed.rss").length;

/** When the feed's latest copy was stored, as its stamp says. */
function feedCopyAt(data: string): number {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const row = db
      .prepare("select fetched_at from captures where url = ? order by fetched_at desc limit 1")
      .get(site.feed) as { fetched_at: string } | undefined;
    if (row === undefined) throw new Error("no copy of the feed");
    return Date.parse(row.fetched_at);
  } finally {
    db.close();
  }
}

describe("fixahead: a copy stamped by a clock two days fast", () => {
  it("P8, P27, P13: a copy another night stored, stamped inside a later night's window (its start to now), is not that night's answer: the later night asks its feed", async () => {
    const data = join(dir, "window");
    const tonight = nightOf(Date.now());
    // Yesterday's night caught up while the clock ran two days fast: its copy of the feed is
    // stamped two days ahead.
    const fast: Clock = { now: () => Date.now() + 2 * DAY, sleep: systemClock.sleep };
    const first = await night(data, fast, "--night", addDays(tonight, -1));
    expect(first.code, first.stderr).toBe(0);
    const stamp = feedCopyAt(data);
    // The night of that stamp's date begins at the very time the copy carries (a clock that
    // moves only by what the night sleeps): the copy is in its window (its start to now), but
    // no request of this night brought it.
    let t = stamp;
    const standing: Clock = {
      now: () => t,
      sleep: async (ms, signal) => {
        t += Math.max(0, ms);
        await systemClock.sleep(Math.min(ms, 5), signal);
      },
    };
    const before = feedAsks();
    const second = await night(data, standing);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`"night":"${nightOf(stamp)}"`);
    expect(feedAsks(), second.stderr).toBe(before + 1);
  });
});
