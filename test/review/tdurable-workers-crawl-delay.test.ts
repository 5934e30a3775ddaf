import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runNorAsync } from "../cli/run-nor.js";
import { startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { writeCatalog } from "../night/cli-night.js";
import { citiesToVendor, vendorFeeds, workersNightArgs } from "./vendor-cities.js";

/**
 * tdurable (outside tester): P10's Crawl-delay and P16 across the processes of one night.
 * `nor night --workers 3` on SQLite: four governments' sites, each its own lane (so its own
 * worker, by whichever claims it), whose feeds all redirect to one vendor's host, whose
 * robots.txt asks for a Crawl-delay of 1 s (longer than the test's 50 ms floor, as 30 s is
 * longer than the real 2 s). The vendor's log is what a site owner reads: robots.txt once,
 * never two requests at once, and never less than the Crawl-delay between the end of one
 * request and the start of the next, whichever worker sent it.
 */
describe("tdurable: a Crawl-delay kept by every worker of a night (P10, P9, P16)", () => {
  it("P10, P9, P16: workers whose lanes all redirect to one vendor keep its Crawl-delay between them, and read its robots.txt once", async () => {
    const fleet = await startFleet({ now: () => Date.now() });
    const dir = mkdtempSync(join(tmpdir(), "nor-tdurable-crawl-"));
    try {
      const vendor = await fleet.server();
      vendor.route(
        "/robots.txt",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "text/plain" })
            .end("User-agent: *\nCrawl-delay: 1\n"),
      );
      vendorFeeds(vendor, 4);
      const sources = await citiesToVendor(fleet, vendor, 4);
      const catalog = writeCatalog(dir, sources);
      const r = await runNorAsync(workersNightArgs(catalog, dir), {
        timeoutMs: 90_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const db = new Database(join(dir, "nor.db"), { readonly: true });
      const outcomes = db.prepare("select outcome from night_sources").all() as {
        outcome: string;
      }[];
      db.close();
      expect(outcomes.map((o) => o.outcome)).toEqual(["ok", "ok", "ok", "ok"]);
      expect(vendor.hits("/robots.txt")).toHaveLength(1);
      expect(vendor.requests).toHaveLength(5);
      // The vendor's own clock: each request starts at least the Crawl-delay after the last ended.
      for (const g of gaps(vendor.requests)) expect(g).toBeGreaterThanOrEqual(1000);
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("P21, P15, P9: a vendor's 503 with Retry-After: 2, then its 403, hold every worker: nothing reaches it before the wait, and nothing after the no", async () => {
    const fleet = await startFleet({ now: () => Date.now() });
    const dir = mkdtempSync(join(tmpdir(), "nor-tdurable-crawl-"));
    try {
      const vendor = await fleet.server();
      vendor.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let feeds = 0;
      for (let i = 0; i < 5; i++) {
        vendor.route(`/feed/${i}.xml`, (_q, res) => {
          feeds++;
          if (feeds === 1) return void res.writeHead(503, { "retry-after": "2" }).end("busy");
          res.writeHead(403).end("Forbidden");
        });
      }
      const sources = await citiesToVendor(fleet, vendor, 5);
      const catalog = writeCatalog(dir, sources);
      const r = await runNorAsync(workersNightArgs(catalog, dir), {
        timeoutMs: 90_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const asked = vendor.requests.filter((q) => q.path !== "/robots.txt");
      // The 503, then (2 s after it ended, whoever sent it) the one request that got the 403.
      expect(asked).toHaveLength(2);
      const [first, second] = asked as [(typeof asked)[0], (typeof asked)[0]];
      expect(second.startedAt - first.endedAt).toBeGreaterThanOrEqual(2000);
      for (const g of gaps(vendor.requests)) expect(g).toBeGreaterThanOrEqual(50);
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
