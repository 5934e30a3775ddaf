/**
 * tdurable (outside tester): P16, P11 across machines. docs/operations.md allows workers on
 * several machines over one PostgreSQL, each with a data directory of its own, and says that
 * then "those answers are asked once more after a takeover". robots.txt is no such answer: it
 * is read "at most once a day per origin, and cached" (P16), and a night costs each source
 * "robots.txt once a day per origin" (P11).
 *
 * Two machines whose lanes both lead to one origin at the night's start (two governments'
 * pages on one vendor's host, or two sites redirecting to it) both need its robots.txt. The
 * first sends it; the second's robots gate found no copy in the store, so its robots.txt
 * request waits on the journal for the first one's lease, then hears "answered" and replays
 * the stored answer from its own archive, where it is not (the first machine's directory holds
 * it). The site gate then asks robots.txt again (replayAllowed = false), without looking at
 * the robots.txt copy the first machine has put in the shared store meanwhile.
 *
 * What the site owner sees: GET /robots.txt twice within a few seconds from the same night.
 * Expected: once (the second machine uses the copy in the shared store).
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { gaps } from "../fleet/gaps.js";
import { html } from "../fleet/routes.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { machineFetcher, raceTwoMachines, slowRobots, withTwoMachines } from "./two-machines.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  await factory?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(factory === undefined)("tdurable: robots.txt on two machines (PostgreSQL)", () => {
  // Was a DEFECT: the second machine asked robots.txt again the same night (site gate's
  // "answered" → unreplayable → replayAllowed=false path, src/net/steps/site-gate.ts: the body
  // was in the first machine's archive only). Mended: a robots.txt read's body is kept with its
  // answer in the journal (src/net/steps/journal.ts), and replayed from there (archive step).
  it("P16, P11: two machines with a data directory each, whose lanes reach one origin at once, read its robots.txt once between them", async () => {
    await withTwoMachines(factory as NonNullable<typeof factory>, dirs, async (m) => {
      const site = await m.fleet.server();
      // A robots.txt that takes a moment to answer: the other machine asks meanwhile.
      const arrived = slowRobots(site, "User-agent: *\nAllow: /\n");
      site.route("/a", html("<ul><li>a</li></ul>"));
      site.route("/b", html("<ul><li>b</li></ul>"));
      const [oa, ob] = await raceTwoMachines(m, site, arrived);
      expect(oa.kind).toBe("ok");
      expect(ob.kind).toBe("ok");
      // What the site's log shows: robots.txt once, then each page.
      expect(site.requests.map((r) => r.path).sort()).toEqual(["/a", "/b", "/robots.txt"]);
    });
  }, 30_000);

  // Was a DEFECT: the same root cause, and P10 with it: the second machine's robots.txt
  // request, asked again, went on the floor gap: src/net/steps/site-gate.ts read the gap once,
  // when the request reached it (deps.crawlDelayMs, src/net/steps/robots-gate.ts CrawlDelays.of,
  // which found no copy in the store then and kept 0 for the origin), and admitted it again
  // after "answered" → unreplayable with that gap, not the Crawl-delay the first machine's
  // answer had just declared. Mended twice over: the robots.txt is replayed, not asked again
  // (P16 above), and the gap is read again before each admission, CrawlDelays reading the store
  // again while it holds no robots.txt of the origin (test/net/steps/site-gate.test.ts and
  // robots-gate.test.ts, P10).
  it("P10: two machines with a data directory each, whose lanes reach one origin at once, keep the Crawl-delay its robots.txt declares between every request there", async () => {
    await withTwoMachines(factory as NonNullable<typeof factory>, dirs, async (m) => {
      const site = await m.fleet.server();
      // A robots.txt that takes a moment to answer: the other machine asks meanwhile.
      const arrived = slowRobots(site, "User-agent: *\nCrawl-delay: 1\n");
      site.route("/a", html("<ul><li>a</li></ul>"));
      site.route("/b", html("<ul><li>b</li></ul>"));
      const [oa, ob] = await raceTwoMachines(m, site, arrived);
      expect(oa.kind).toBe("ok");
      expect(ob.kind).toBe("ok");
      // The site's own clock: each request starts at least the Crawl-delay (1 s, where the test's
      // floor is 100 ms) after the previous one ended. Seen on main: the second machine's
      // robots.txt request 0.26 to 0.34 s after the first one's answer, sent on the floor gap,
      // then the pages 1 s apart.
      for (const g of gaps(site.requests)) expect(g).toBeGreaterThanOrEqual(1000);
    });
  }, 30_000);

  // DEFECT: the same root cause as above, for a page: the second machine's request for a page
  // the first answered in full tonight hears "answered", cannot replay it from its own archive,
  // and sends it again (src/net/steps/site-gate.ts, case "answered", replayAllowed = false).
  // docs/operations.md allowed a page asked once more "after a takeover" only; here no worker
  // died and no lane changed hands. Left unmended (confirmed failing: the vendor's /agendas
  // asked twice): a mend keeps tonight's page bodies (up to 20 MiB each) in the shared store
  // beside the archive, a design change of its own; the robots.txt's body alone is kept there
  // (P16 above). docs/operations.md now says it, and its remedy: one shared data directory.
  it.skip("P8: a page two sources on two machines reach (both redirect to it) is asked once a night, with no takeover", async () => {
    await withTwoMachines(factory as NonNullable<typeof factory>, dirs, async (m) => {
      // The vendor's host both governments' old addresses lead to.
      const vendor = await m.fleet.server();
      vendor.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      vendor.route("/agendas", html("<ul><li>agenda</li></ul>"));
      const govA = await m.fleet.server();
      const govB = await m.fleet.server();
      for (const g of [govA, govB]) {
        g.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        g.route(
          "/agendas",
          (_q, res) => void res.writeHead(301, { location: vendor.url("/agendas") }).end(),
        );
      }
      const a = await machineFetcher(m.machineA, m.dirA, "host-a:101:aaaa");
      const b = await machineFetcher(m.machineB, m.dirB, "host-b:202:bbbb");
      const oa = await a.fetch({ url: govA.url("/agendas"), purpose: "page", source: "gov-a" });
      const ob = await b.fetch({ url: govB.url("/agendas"), purpose: "page", source: "gov-b" });
      await a.close();
      await b.close();
      expect([oa.kind, ob.kind]).toEqual(["ok", "ok"]);
      // What the vendor's log shows: its robots.txt and the page, once each.
      expect(vendor.requests.map((r) => r.path)).toEqual(["/robots.txt", "/agendas"]);
    });
  }, 30_000);
});
