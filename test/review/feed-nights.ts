/**
 * The setup the clock-ahead tests (fixahead, tclock) share: one loopback feed site, a village
 * catalog listing it as one source, and `nor night` run in-process with a clock of the test's.
 * Call feedNights at a test file's top level: it registers that file's beforeAll and afterAll.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";
import { oneFeedSite } from "../cli/one-feed.js";

export const DAY = 24 * 3_600_000;

/** The machine's clock moved by `offset` ms (sleeps are real). */
export const clockAt = (offset: number): Clock => ({
  now: () => Date.now() + offset,
  sleep: systemClock.sleep,
});

export interface FeedNights {
  /** The file's temporary directory (each test's data directory goes under it). */
  dir: string;
  /** The feed site (set in beforeAll). */
  readonly site: Awaited<ReturnType<typeof oneFeedSite>>;
  /** `nor night` over the catalog into `data`, on `clock`, loopback allowed, no gap. */
  night: (data: string, clock: Clock, ...more: string[]) => ReturnType<typeof runMain>;
  /** How many times the feed has been asked so far. */
  feedAsks: () => number;
}

/** `prefix` names the temporary directory; the catalog is `village`'s, its one source `source`. */
export function feedNights(prefix: string, village: string, source: string): FeedNights {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let site: Awaited<ReturnType<typeof oneFeedSite>> | undefined;
  let catalog = "";
  beforeAll(async () => {
    site = await oneFeedSite();
    catalog = writeVillageCatalog(join(dir, "c.yaml"), village, {
      [source]: `records: agendas, access: feed, url: "${site.feed}"`,
    });
  });
  afterAll(async () => {
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const started = () => {
    if (site === undefined) throw new Error("feedNights: the feed site starts in beforeAll");
    return site;
  };
  return {
    dir,
    get site() {
      return started();
    },
    night: (data, clock, ...more) =>
      runMain(
        [
          "night",
          ...["--catalog", catalog, "--data", data],
          ...["--allow-private-addresses", "--gap-ms", "0", ...more],
        ],
        { clock },
      ),
    feedAsks: () => started().asked.filter((p) => p === "/feed.rss").length,
  };
}
