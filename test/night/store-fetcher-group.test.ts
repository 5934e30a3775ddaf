/**
 * `nor night` hands the fetcher its SQL journal wrapped (compose.ts counts admissions and times
 * completions) together with that journal's group commit. The robots.txt answers the fetcher
 * stores must join that group commit, as the journal's own rows do: one transaction and one
 * fsync with the writes beside them, not a commit and an fsync each. Until this test, the
 * wrapper hid the group (the fetcher looked for it on the journal object only) and every
 * robots.txt answer of a night was committed alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import type { JournalPort } from "../../src/net/journal.js";
import { storeFetcher } from "../../src/night/store-fetcher.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { robots } from "../fleet/routes.js";

describe("the fetcher of `nor night` and the journal's group commit", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({
      fallback: (_q, res) => void res.writeHead(200, { "content-type": "text/plain" }).end("x"),
    });
    site.route("/robots.txt", robots("User-agent: *\nDisallow: /private/\n"));
    dir = mkdtempSync(join(tmpdir(), "nor-fetcher-group-"));
    store = await openStore({ kind: "sqlite", dir });
  });
  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P16: with the journal wrapped as `nor night` wraps it, the robots.txt answer is stored in the journal's group commit", async () => {
    const sql = new SqlJournal(store.db);
    // As compose.ts does: a JournalPort that is not the SqlJournal itself, and its group beside.
    const wrapped: JournalPort = {
      admit: (intent, holder, now) => sql.admit(intent, holder, now),
      complete: (id, holder, c) => sql.complete(id, holder, c),
      waitAsked: (id, w) => sql.waitAsked(id, w),
      answer: (night, key) => sql.answer(night, key),
      rulesNow: (site) => sql.rulesNow(site),
    };
    const f = storeFetcher({
      db: store.db,
      clock: systemClock,
      ids: randomIds,
      net: { allowPrivateAddresses: true, gapMs: 20 },
      night: "2026-11-05",
      journal: wrapped,
      group: sql.group,
    });
    try {
      const o = await f.fetch({ url: site.url("/list"), purpose: "page" });
      expect(o.kind).toBe("ok");
    } finally {
      await f.close();
    }
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
    // Two requests: each an admission and a completion; and the robots.txt answer stored.
    expect(sql.group.stats.writes).toBe(2 * 2 + 1);
    const cached = await new SqlRobotsCache(store.db).get(site.url("/").replace(/\/$/, ""));
    expect(cached?.body).toContain("Disallow: /private/");
  });
});
