import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/**
 * What a site owner asks by e-mail (a slower pace, some pages left alone, the whole site left
 * alone), set with `nor site` while a night runs, holds from the next request on: the server
 * sees it. The night runs in this process (on a 50 ms loopback gap); `nor site` runs here too,
 * on the same store, while it is under way.
 */
describe("site owners' requests (nor site), set while a night runs", () => {
  let fleet: Fleet;
  const dirs: string[] = [];

  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A site of four feeds; `onFirst` runs (and finishes) before the first feed is answered. */
  async function scenario(onFirst: (dir: string, site: FleetServer) => Promise<void>) {
    const dir = mkdtempSync(join(tmpdir(), "nor-owner-"));
    dirs.push(dir);
    const site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    let first = true;
    for (const n of [1, 2, 3, 4]) {
      site.route(`/feed/${n}.xml`, async (_q, res) => {
        if (first) {
          first = false;
          await onFirst(dir, site);
        }
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, `f${n}`));
      });
    }
    const catalog = writeCatalog(
      dir,
      [1, 2, 3, 4].map((n) => [
        `id: f${n}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(`/feed/${n}.xml`)}`,
      ]),
    );
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    const outcomes = db
      .prepare("select source_id, outcome, reason from night_sources order by source_id")
      .all() as { source_id: string; outcome: string; reason: string | null }[];
    db.close();
    return { site, outcomes, dir };
  }

  /** A store with a catalog of one feed, f1, served by `site` at /feed/1.xml, imported. */
  async function oneFeed(site: FleetServer): Promise<{ dir: string; catalog: string }> {
    const dir = mkdtempSync(join(tmpdir(), "nor-owner-"));
    dirs.push(dir);
    site.route(
      "/feed/1.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, "f1")),
    );
    const catalog = writeCatalog(dir, [
      [
        "id: f1",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/feed/1.xml")}`,
      ],
    ]);
    await nor(["catalog", "import", catalog, "--data", dir]);
    return { dir, catalog };
  }

  const nor = async (args: string[]) => {
    const r = await runMain(args);
    expect(r.code, r.stderr).toBe(0);
  };

  it("P10: a longer gap for the site (nor site --gap 2s) holds from the next request on", async () => {
    const { site } = await scenario(async (dir, s) => {
      await nor([
        "site",
        s.host,
        "--data",
        dir,
        "--gap",
        // The floor itself, forty times the 50 ms this test's night keeps on loopback.
        "2s",
        "--reason",
        "owner, e-mail of Nov 5",
      ]);
    });
    const feeds = site.requests.filter((r) => r.path.startsWith("/feed/"));
    expect(feeds).toHaveLength(4);
    // The first feed was answered after the rule was set: every gap from its end is ≥ 2 s.
    for (const g of gaps(feeds)) expect(g).toBeGreaterThanOrEqual(2000);
  }, 60_000);

  /** `nor status --json` of the store: each source's row. */
  const status = async (dir: string) => {
    const r = await runMain(["status", "--data", dir, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      id: string;
      reading: boolean;
      notReadReason?: string;
      siteNotRead?: string;
      way?: { access: string };
      skipped: { why: string }[];
    }[];
  };

  it("P18: a path left alone (nor site --leave-alone) is never requested, like a robots.txt Disallow", async () => {
    const { site, outcomes, dir } = await scenario(async (dir, s) => {
      await nor([
        "site",
        s.url("/"),
        "--data",
        dir,
        "--leave-alone",
        "/feed/3",
        "--reason",
        "asked",
      ]);
    });
    expect(site.requests.map((r) => r.path).filter((p) => p.startsWith("/feed/3"))).toEqual([]);
    // The owner's decision (P26), not robots.txt's (P18): its own outcome.
    expect(outcomes.find((o) => o.source_id === "f3")?.outcome).toBe("left-alone");
    // nor status says why in the owner's words, not robots.txt's.
    const f3 = (await status(dir)).find((r) => r.id === "f3");
    expect(f3?.skipped.map((x) => x.why)).toEqual(["left alone at the site owner's request"]);
    expect(
      outcomes
        .filter((o) => o.outcome === "ok")
        .map((o) => o.source_id)
        .sort(),
    ).toEqual(["f1", "f2", "f4"]);
  }, 60_000);

  it("P18, P26: the whole site left alone (nor site --leave-alone /) is asked nothing at all, its robots.txt included; a path left alone still lets robots.txt be read", async () => {
    const site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const { dir, catalog } = await oneFeed(site);
    await nor(["site", site.url("/"), "--data", dir, "--leave-alone", "/", "--reason", "asked"]);
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.map((q) => q.path)).toEqual([]);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      expect(db.prepare("select outcome, reason from night_sources").all()).toEqual([
        { outcome: "left-alone", reason: expect.stringMatching(/for \/ to be left alone/) },
      ]);
      // Nothing is kept of robots.txt for the origin: cleared, the rule asks robots.txt then.
      expect(db.prepare("select count(*) as n from robots_cache").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    // The rule cleared, the next night reads robots.txt and the feed.
    await nor([
      "site",
      site.url("/"),
      "--data",
      dir,
      "--clear-leave-alone",
      "/",
      "--reason",
      "done",
    ]);
    const r2 = await nightCli(catalog, dir, "2026-11-06");
    expect(r2.code, r2.stderr).toBe(0);
    expect(site.requests.map((q) => q.path)).toEqual(["/robots.txt", "/feed/1.xml"]);
  }, 60_000);

  it("P18, P20, P26: a robots.txt that redirects into another site's path its owner left alone: that path is not asked, and the first site's robots.txt is unreachable, not its owner's no", async () => {
    for (const [left, target] of [
      ["/", "/robots.txt"],
      ["/private", "/private/robots.txt"],
    ] as const) {
      const a = await fleet.server();
      const b = await fleet.server();
      a.route(
        "/robots.txt",
        (_q, res) => void res.writeHead(301, { location: b.url(target) }).end(),
      );
      b.route(target, (_q, res) => void res.writeHead(404).end());
      const { dir, catalog } = await oneFeed(a);
      await nor([
        "site",
        b.url("/"),
        "--data",
        dir,
        "--leave-alone",
        left,
        "--reason",
        "B's owner asked",
      ]);
      const r = await nightCli(catalog, dir, "2026-11-05");
      expect(r.code, r.stderr).toBe(0);
      // B's robots.txt is read before a hop into one of its pages (P19), unless its owner left
      // the whole site alone; the path left alone is never asked.
      expect(
        b.requests.map((q) => q.path),
        left,
      ).toEqual(left === "/" ? [] : ["/robots.txt"]);
      expect(
        a.requests.map((q) => q.path),
        left,
      ).toEqual(["/robots.txt"]);
      const db = new Database(join(dir, "nor.db"), { readonly: true });
      try {
        const [o] = db.prepare("select outcome, reason from night_sources").all() as {
          outcome: string;
          reason: string;
        }[];
        expect(o?.outcome, left).toBe("robots-unavailable");
        expect(o?.reason, left).not.toContain("B's owner asked");
        expect(o?.reason, left).toContain(
          `its robots.txt redirects to ${b.url(target)}, which that site's owner asked to be left alone`,
        );
      } finally {
        db.close();
      }
    }
  }, 60_000);

  it("P24, P26: the whole site not read (nor site --not-read): nothing more is sent there", async () => {
    const { site, outcomes, dir } = await scenario(async (dir, s) => {
      await nor(["site", s.host, "--data", dir, "--not-read", "--reason", "owner asked by phone"]);
    });
    // robots.txt and the feed that was already on its way; nothing after.
    expect(site.requests.map((r) => r.path)).toEqual(["/robots.txt", "/feed/1.xml"]);
    const others = outcomes.filter((o) => o.source_id !== "f1");
    expect(others).toHaveLength(3);
    for (const o of others) {
      // The operator's decision, not the site's no (P26): never asked.
      expect(o.outcome).toBe("left-alone");
      expect(o.reason).toMatch(/owner asked not to be read/);
    }
    // nor status says every source of the site is not read, and why, as the directory does;
    // each source's own mark stays its own (the console marks sources by it).
    for (const r of await status(dir)) {
      expect(r.reading).toBe(true);
      expect(r.siteNotRead).toBe("the site's owner asked not to be read (owner asked by phone)");
    }
    const text = await runMain(["status", "--data", dir]);
    expect(text.stdout).toContain(
      "\tnot read: the site's owner asked not to be read (owner asked by phone)\t",
    );
  }, 60_000);

  it("P24, P25: one source marked not read (nor mark --not-read) while the night runs is asked nothing more, its records not taken", async () => {
    const { site, outcomes } = await scenario(async (dir) => {
      await nor(["mark", "f3", "--data", dir, "--not-read", "--reason", "owner asked by e-mail"]);
    });
    expect(site.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/feed/1.xml",
      "/feed/2.xml",
      "/feed/4.xml",
    ]);
    // No outcome tonight for it (as a source planned not read), and no records.
    expect(outcomes.map((o) => [o.source_id, o.outcome])).toEqual([
      ["f1", "ok"],
      ["f2", "ok"],
      ["f4", "ok"],
    ]);
  }, 60_000);

  it("P24: a source marked not read and then read again while the night runs is checked as planned (the latest mark holds)", async () => {
    const { site } = await scenario(async (dir) => {
      await nor(["mark", "f2", "--data", dir, "--not-read", "--reason", "owner asked"]);
      await nor(["mark", "f2", "--data", dir, "--read"]);
    });
    expect(site.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/feed/1.xml",
      "/feed/2.xml",
      "/feed/3.xml",
      "/feed/4.xml",
    ]);
  }, 60_000);

  it("nor site lists the requests in force with their reason and date, and refuses a gap under the floor", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-owner-"));
    dirs.push(dir);
    // `nor site` works on a store that is there; it never makes one (a mistyped --data is exit 2).
    await (await openStore({ kind: "sqlite", dir })).close();
    await nor([
      "site",
      "www.example.gov",
      "--data",
      dir,
      "--gap",
      "10s",
      "--reason",
      "slower please",
    ]);
    await nor([
      "site",
      "https://example.gov/x",
      "--data",
      dir,
      "--leave-alone",
      "/permits/",
      "--reason",
      "r",
    ]);
    const listed = await runMain(["site", "example.gov", "--data", dir]);
    expect(listed.code, listed.stderr).toBe(0);
    const underFloor = ["site", "example.gov", "--data", dir, "--gap", "1s", "--reason", "x"];
    expect((await runMain(underFloor)).code).toBe(2);
    expect((await runMain(["site", "example.gov", "--data", dir, "--not-read"])).code).toBe(2);
    const text = listed.stdout;
    expect(text).toMatch(
      /example\.gov: at least 10 s between requests \(since \d{4}-\d\d-\d\d, by .+: slower please\)/,
    );
    expect(text).toMatch(/example\.gov: \/permits\/ left alone/);
  });
});
