import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { restartBackfill } from "../../src/store/backfill.js";
import { openStore } from "../../src/store/db.js";
import { asked, desc, list, listSite } from "../night/overflow-carry-world.js";
import { nightOn, testerWorld } from "../night/tester-nights.js";

/**
 * tdurable (outside tester), end to end: the site's side of a `nor backfill restart` made while
 * the night reads the source's overflow (another process: a store handle of its own). The
 * restart reads the list from page 1 again and clears the overflow left unfinished, "not read on
 * again after it" (store/backfill.ts restartBackfill); test/night/overflow-carry.test.ts proves
 * that with the restart made between nights: the backfill reads every page again to its end, and
 * the night after asks the first page only. Made while the night runs, the night's commit writes
 * its overflow back over the restart (store/night-store.ts `if (r.overflow)`: a plain UPDATE, no
 * compare-and-set on the restarts it read, unlike the backfill's columns), so later nights read
 * the list's pages twice over: from page 1 for the backfill and on from the overflow's page.
 */
const world = testerWorld("nor-tdurable-restart-overflow-");

describe("tdurable: a backfill restart while the night reads an overflow (P7, P11, P24)", () => {
  it("P7, P11, P24: a restart made while the night reads the source's overflow holds as one made between nights: once the backfill has read the list again, a night asks the first page only", async () => {
    let count = 10;
    let data = "";
    let restarted: Promise<unknown> | undefined;
    const pages = list(() => desc(count));
    // While the night reads its overflow (page 3 of the thirty posted), a person restarts the
    // source's backfill from another process; the page is answered once that has committed.
    const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      if (count === 40 && req.url === "/list?page=3" && restarted === undefined) {
        restarted = (async () => {
          const person = await openStore({ kind: "sqlite", dir: data });
          try {
            return await restartBackfill(person.db, "list", { by: "dana", at: Date.now() });
          } finally {
            await person.close();
          }
        })();
        await restarted;
      }
      pages(req, res);
    };
    const site = await listSite(world, "restart-during", handler);
    data = site.data;
    // Thirty posted: pages 1 to 4 read (the overflow), left at page 5; restarted meanwhile.
    count = 40;
    await nightOn(site.catalog, data, "2026-11-21");
    expect(await restarted).toMatchObject({ kind: "restarted" });
    // As between nights: the backfill reads the list's fourteen pages again, three a night.
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"])
      await nightOn(site.catalog, data, night);
    // Every record read again by it: nothing left to carry over, nothing more asked (P11).
    await nightOn(site.catalog, data, "2026-11-27");
    expect(asked(data, "2026-11-27")).toEqual(["/list"]);
  });
});
