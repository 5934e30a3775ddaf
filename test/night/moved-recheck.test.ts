import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";
import { feed, mover, paths, storesOfFile } from "./moved-world.js";

/**
 * P25, P11: a source marked not read whose catalog URL moved permanently (301/308, remembered:
 * test/night/moved-permanently.test.ts) is rechecked where it moved, as a night reads it: one
 * request to the page (its origin's robots.txt first, P19/P18, and its site's gap), never the
 * catalog URL and its redirect again. A remembered target that fails on a recheck is forgotten,
 * as a night forgets it: the next recheck asks the catalog URL. And (P11) a catalog URL written
 * again in another form of the same address (a fragment, an escape of an unreserved character)
 * finds its remembered move.
 */
const stores = storesOfFile();

describe.each(stores)("a moved page, rechecked or written again ($name)", (store) => {
  let fleet: Fleet;
  let dir: string;
  let env: Record<string, string>;
  const data = () => join(dir, "data");
  const night = async (catalog: string, date: string, extra: string[] = []) => {
    const r = await runMain(
      [
        ...["night", "--catalog", catalog, "--data", data(), "--night", date],
        ...["--allow-private-addresses", "--gap-ms", "50", ...extra],
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
  };
  const cli = async (args: string[]) => {
    const r = await runMain([...args, "--data", data()], { env });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  const mark = (id: string, date: string) =>
    cli(["mark", id, "--not-read", "--reason", "the clerk asked", "--night", date]);
  const status = async () =>
    JSON.parse(await cli(["status", "--json"])) as {
      id: string;
      lastNight?: string;
      lastOutcome?: string;
      recordsKnown: number;
      flags: string[];
    }[];
  /** `fn` on the test's store, opened and closed around it. */
  const inStore = async (fn: (db: Db) => Promise<unknown>) => {
    const db = await openStore(
      env["NOR_DATABASE_URL"]
        ? { kind: "postgres", url: env["NOR_DATABASE_URL"] }
        : { kind: "sqlite", dir: data() },
    );
    try {
      await fn(db.db);
    } finally {
      await db.close();
    }
  };
  /** The store's robots.txt copy of `origin` read two days ago: the next request reads it again. */
  const ageRobots = (origin: string) =>
    inStore((db) =>
      db
        .updateTable("robots_cache")
        .set({ fetched_at: new Date(Date.now() - 2 * 86_400_000).toISOString() })
        .where("origin", "=", origin)
        .execute(),
    );
  /**
   * Source `id`'s check on `date` as a slow answer of `ms` more would have measured it (the
   * time the plan estimates its lane by, night_sources.duration_ms): its lane the busier one,
   * planned first on the next night, without waiting the answer out on the wall clock.
   */
  const slowed = (id: string, date: string, ms: number) =>
    inStore(async (db) => {
      const r = await db
        .updateTable("night_sources")
        .set((eb) => ({ duration_ms: eb("duration_ms", "+", ms) }))
        .where("night", "=", date)
        .where("source_id", "=", id)
        .executeTakeFirst();
      expect(Number(r.numUpdatedRows)).toBe(1);
    });

  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
  });

  it("P25, P11, P19, P18: a source marked not read is rechecked where its page moved (that origin's robots.txt, one request), never its catalog URL and its redirect", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-recheck-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      const b = await fleet.server();
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let bRobots = "User-agent: *\nAllow: /\n";
      b.route("/robots.txt", (_q, res) => void res.writeHead(200).end(bRobots));
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml");
      // To another origin (its robots.txt read before it is asked, P19).
      mover(a, "/old.rss", 308, () => b.url("/feed.xml"));
      feed(b, "/feed.xml");
      const catalog = writeCatalog(dir, [
        feedEntry("same-origin", a.url("/moved?to=/feed.xml")),
        feedEntry("other-origin", a.url("/old.rss")),
      ]);
      await night(catalog, "2026-11-05");
      for (const id of ["same-origin", "other-origin"]) await mark(id, "2026-11-05");

      // The first recheck night: each page asked once where it moved, with its validators.
      let [fa, fb] = [a.requests.length, b.requests.length];
      await night(catalog, "2026-11-06");
      expect(paths(a, fa).filter((p) => p !== "/robots.txt")).toEqual(["/feed.xml (304?)"]);
      expect(paths(b, fb).filter((p) => p !== "/robots.txt")).toEqual(["/feed.xml (304?)"]);
      for (const s of await status())
        expect(s, s.id).toMatchObject({
          lastNight: "2026-11-06",
          lastOutcome: "recheck-answers",
          recordsKnown: 3,
          flags: expect.arrayContaining(["answers-again"]),
        });
      // P27: logged as a recheck of the URL asked.
      const log = (await cli(["log", "--jsonl", "--source", "other-origin"]))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { url: string; purpose: string; night?: string });
      expect(
        log
          .filter((r) => r.night === "2026-11-06" && r.purpose !== "robots")
          .map((r) => [r.purpose, r.url]),
      ).toEqual([["recheck", b.url("/feed.xml")]]);

      // The moved-to origin's robots.txt now disallows the page (read again: a day old): the
      // recheck reads it and does not ask the page (P18), nor the catalog URL.
      bRobots = "User-agent: *\nDisallow: /feed.xml\n";
      await ageRobots(b.origin);
      [fa, fb] = [a.requests.length, b.requests.length];
      await night(catalog, "2026-11-07");
      expect(paths(b, fb)).toEqual(["/robots.txt"]);
      expect(paths(a, fa).filter((p) => p !== "/robots.txt")).toEqual(["/feed.xml (304?)"]);
      const other = (await status()).find((s) => s.id === "other-origin");
      expect(other).toMatchObject({ lastNight: "2026-11-07", lastOutcome: "recheck-still-no" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P11: a remembered target that answers 404 on a recheck is forgotten, as a night forgets it: the next recheck asks the catalog URL (never both on one night), and finds the move again", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-recheck-gone-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let to = "/feed.xml";
      mover(a, "/moved", 301, () => to);
      let gone = false;
      feed(a, "/feed.xml", () => (gone ? "gone" : "ok"));
      feed(a, "/newer.xml");
      const catalog = writeCatalog(dir, [feedEntry("moves", a.url("/moved"))]);
      await night(catalog, "2026-11-05");
      await mark("moves", "2026-11-05");
      // The site moves the page again: the old target gone, the catalog URL leading further.
      gone = true;
      to = "/newer.xml";
      const seen: string[][] = [];
      for (const date of ["2026-11-06", "2026-11-07", "2026-11-08"]) {
        const from = a.requests.length;
        await night(catalog, date);
        seen.push(paths(a, from).filter((p) => p !== "/robots.txt"));
      }
      expect(seen).toEqual([
        // The remembered target, gone: asked once, the move forgotten, nothing else asked.
        ["/feed.xml (304?)"],
        // The catalog URL, as a visitor would go back to it: the move found again, kept.
        ["/moved", "/newer.xml"],
        ["/newer.xml"],
      ]);
      const moves = (await status()).find((s) => s.id === "moves");
      expect(moves).toMatchObject({ recordsKnown: 3, lastOutcome: "recheck-answers" });
      // A person is told where it is asked now (a flag naming the new page).
      const flags = JSON.parse(await cli(["flags", "--json"])) as {
        kind: string;
        detail: string;
      }[];
      expect(
        flags.some((f) => f.kind === "moved" && f.detail.includes(`to ${a.url("/newer.xml")}`)),
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P11: a page moved back (its remembered target now redirects to the catalog URL, which answers) is rechecked there once, the move forgotten: the next recheck asks the catalog URL only", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-recheck-back-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let back = false;
      a.route("/list.xml", (_q, res) => {
        if (!back) return void res.writeHead(301, { location: "/feed.xml" }).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(a.origin, 3));
      });
      a.route("/feed.xml", (_q, res) => {
        if (back) return void res.writeHead(301, { location: "/list.xml" }).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(a.origin, 3));
      });
      const catalog = writeCatalog(dir, [feedEntry("back", a.url("/list.xml"))]);
      await night(catalog, "2026-11-05");
      await mark("back", "2026-11-05");
      back = true;
      const seen: string[][] = [];
      for (const date of ["2026-11-06", "2026-11-07"]) {
        const from = a.requests.length;
        await night(catalog, date);
        seen.push(paths(a, from).filter((p) => p !== "/robots.txt"));
      }
      expect(seen).toEqual([["/feed.xml", "/list.xml"], ["/list.xml"]]);
      expect((await status()).find((s) => s.id === "back")).toMatchObject({
        lastOutcome: "recheck-answers",
        recordsKnown: 3,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P21, P9: a recheck of a page that moved to another site goes in that site's lane, after its pages that are read: a no it meets there does not cost them their night", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-recheck-lane-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      const b = await fleet.server();
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // The catalog URL on site A moved to site B, whose page now says no (403) to the checker.
      mover(a, "/old.rss", 301, () => b.url("/feed.xml"));
      let refuses = false;
      b.route("/feed.xml", (_q, res) => {
        if (refuses) return void res.writeHead(403).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(b.origin, 3));
      });
      // A source on site B, read every night.
      b.route("/own.xml", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(b.origin, 2, "own"));
      });
      const catalog = writeCatalog(dir, [
        feedEntry("moved-away", a.url("/old.rss")),
        feedEntry("on-b", b.url("/own.xml")),
      ]);
      await night(catalog, "2026-11-05", ["--concurrency", "1"]);
      // Night 1 slow at A: A's lane (the moved source's, by its catalog URL) is planned first.
      await slowed("moved-away", "2026-11-05", 1_500);
      await mark("moved-away", "2026-11-05");
      refuses = true;
      const fb = b.requests.length;
      await night(catalog, "2026-11-06", ["--concurrency", "1"]);
      // B's own page read first, then the recheck of the page that moved there (its no).
      expect(paths(b, fb).filter((p) => p !== "/robots.txt")).toEqual(["/own.xml", "/feed.xml"]);
      const rows = await status();
      expect(rows.find((s) => s.id === "on-b")).toMatchObject({ lastNight: "2026-11-06" });
      expect(rows.find((s) => s.id === "on-b")?.lastOutcome).not.toBe("refused");
      expect(rows.find((s) => s.id === "moved-away")).toMatchObject({
        lastNight: "2026-11-06",
        lastOutcome: "recheck-still-no",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P21, P9, P11: a source read every night whose catalog URL moved to another site is read in that site's lane, before a recheck there: the recheck's no does not cost it its night", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-read-lane-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      const b = await fleet.server();
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // A source read every night: its catalog URL on site A moved permanently to site B.
      a.route(
        "/old.rss",
        (_q, res) => void res.writeHead(301, { location: b.url("/feed.xml") }).end(),
      );
      b.route("/feed.xml", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(b.origin, 3));
      });
      // A source on site B that a person marks not read; on its recheck it says no (403).
      let refuses = false;
      b.route("/own.xml", (_q, res) => {
        if (refuses) return void res.writeHead(403).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(b.origin, 2, "own"));
      });
      const catalog = writeCatalog(dir, [
        feedEntry("moved-read", a.url("/old.rss")),
        feedEntry("on-b", b.url("/own.xml")),
      ]);
      await night(catalog, "2026-11-05", ["--concurrency", "1"]);
      // Night 1 slow at B: B's lane is the busier one, planned first on the next night.
      await slowed("on-b", "2026-11-05", 4_000);
      await mark("on-b", "2026-11-05");
      refuses = true;
      const fb = b.requests.length;
      await night(catalog, "2026-11-06", ["--concurrency", "1"]);
      // The page read every night (asked where it moved) first, then the recheck (its no).
      expect(paths(b, fb).filter((p) => p !== "/robots.txt")).toEqual(["/feed.xml", "/own.xml"]);
      const rows = await status();
      expect(rows.find((s) => s.id === "moved-read")).toMatchObject({
        lastNight: "2026-11-06",
        lastOutcome: "ok",
      });
      expect(rows.find((s) => s.id === "on-b")).toMatchObject({
        lastNight: "2026-11-06",
        lastOutcome: "recheck-still-no",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P21, P9: a recheck whose catalog URL redirects to another site that says no (so no move is remembered) goes in that site's lane, after its pages that are read", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-redirect-recheck-lane-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      const b = await fleet.server();
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // The catalog URL on site A moved permanently to site B, which says no (403) to the
      // checker: the page is never read there, so the move is never remembered.
      mover(a, "/old.rss", 301, () => b.url("/feed.xml"));
      b.route("/feed.xml", (_q, res) => void res.writeHead(403).end());
      // A source on site B, read every night.
      b.route("/own.xml", (_q, res) => {
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(b.origin, 2, "own"));
      });
      const catalog = writeCatalog(dir, [
        feedEntry("refused-away", a.url("/old.rss")),
        feedEntry("on-b", b.url("/own.xml")),
      ]);
      await night(catalog, "2026-11-05", ["--concurrency", "1"]);
      // Night 1 slow at A: A's lane is the busier one, planned first on the next night.
      await slowed("refused-away", "2026-11-05", 4_000);
      await mark("refused-away", "2026-11-05");
      const fb = b.requests.length;
      await night(catalog, "2026-11-06", ["--concurrency", "1"]);
      // B's own page read first, then the recheck's hop to B (its no).
      expect(paths(b, fb).filter((p) => p !== "/robots.txt")).toEqual(["/own.xml", "/feed.xml"]);
      const rows = await status();
      expect(rows.find((s) => s.id === "on-b")).toMatchObject({ lastNight: "2026-11-06" });
      expect(rows.find((s) => s.id === "on-b")?.lastOutcome).not.toBe("refused");
      expect(rows.find((s) => s.id === "refused-away")).toMatchObject({
        lastNight: "2026-11-06",
        lastOutcome: "recheck-still-no",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P25, P21: a recheck planned in the lane of the site its catalog URL last redirected to still asks its catalog URL when that site said no earlier tonight (before a restart): a page that answers there again is told", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-redirect-recheck-closed-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      const b = await fleet.server();
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      // Night 1: the catalog URL on A answers 301 to B, which says no; marked not read.
      let back = false;
      a.route("/old.rss", (_q, res) => {
        if (!back) return void res.writeHead(301, { location: b.url("/feed.xml") }).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(a.origin, 2));
      });
      b.route("/feed.xml", (_q, res) => void res.writeHead(403).end());
      const catalog = writeCatalog(dir, [feedEntry("refused-away", a.url("/old.rss"))]);
      await night(catalog, "2026-11-05");
      await mark("refused-away", "2026-11-05");
      // Night 2, before a restart: B said no (written in the journal); A serves the page again.
      back = true;
      const db = await openStore(
        env["NOR_DATABASE_URL"]
          ? { kind: "postgres", url: env["NOR_DATABASE_URL"] }
          : { kind: "sqlite", dir: data() },
      );
      try {
        const journal = new SqlJournal(db.db);
        // After night 1's last request to B and its gap.
        const t0 = Date.now() + 1_000;
        const url = b.url("/other.xml");
        const admitted = await journal.admit(
          {
            night: "2026-11-06",
            key: `GET ${url}`,
            method: "GET",
            url,
            site: b.host,
            origin: b.origin,
            source: "elsewhere",
            purpose: "page",
            gapMs: 50,
            replayAllowed: true,
          },
          "gone-host:1:dead",
          t0,
        );
        if (admitted.kind !== "go") throw new Error(admitted.kind);
        await journal.waitAsked(admitted.id, {
          status: 429,
          retryAt: t0 + 86_400_000,
          closeSite: "HTTP 429 (retry-after-too-long)",
        });
      } finally {
        await db.close();
      }
      const fa = a.requests.length;
      await night(catalog, "2026-11-06");
      expect(paths(a, fa).filter((p) => p !== "/robots.txt")).toEqual(["/old.rss"]);
      expect((await status()).find((s) => s.id === "refused-away")).toMatchObject({
        lastNight: "2026-11-06",
        lastOutcome: "recheck-answers",
        flags: expect.arrayContaining(["answers-again"]),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P11: a catalog URL written again in another form of the same address (a fragment, %76 for v) finds its remembered move: asked where it moved, no second flag", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-respelled-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server();
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml");
      const seen: string[][] = [];
      const run = async (url: string, date: string) => {
        const from = a.requests.length;
        await night(writeCatalog(dir, [feedEntry("moves", url)]), date);
        seen.push(paths(a, from).filter((p) => p !== "/robots.txt"));
      };
      await run(a.url("/moved"), "2026-11-05");
      await run(a.url("/mo%76ed#latest"), "2026-11-06");
      await run(a.url("/mo%76ed#latest"), "2026-11-07");
      await run(a.url("/moved"), "2026-11-08");
      expect(seen).toEqual([
        ["/moved", "/feed.xml"],
        ["/feed.xml (304?)"],
        ["/feed.xml (304?)"],
        ["/feed.xml (304?)"],
      ]);
      const flags = JSON.parse(await cli(["flags", "--json"])) as { kind: string }[];
      expect(flags.filter((f) => f.kind === "moved")).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
