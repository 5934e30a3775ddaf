import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedEntry, writeCatalog } from "./cli-night.js";
import { feed, mover, paths, storesOfFile } from "./moved-world.js";

/**
 * P11 (an outside tester's finding): a source whose catalog URL answers a permanent redirect
 * (301, 308) cost its redirect every night, for ever, and silently: the redirect, then the page
 * (a 304), plus robots.txt, and another origin's robots.txt when it moved there. Now the move is
 * remembered in the store (source_moves, by the source and its catalog URL) the night its page
 * is read at the end of it; later nights ask the page where it moved (its robots.txt, its
 * validators), a person is told once (a `moved` flag), `nor status` says the URL asked, and a
 * target that fails sends the checker back to the catalog's URL the next night.
 */
const stores = storesOfFile();

const NIGHTS = ["2026-11-05", "2026-11-06", "2026-11-07"];

/** A path that answers `status` to where its query's `to` says (the tester's /moved?to=…). */

describe.each(stores)("a catalog URL that moved permanently ($name)", (store) => {
  let fleet: Fleet;
  let dir: string;
  let env: Record<string, string>;
  const night = async (catalog: string, date: string) => {
    const r = await runMain(
      [
        ...["night", "--catalog", catalog, "--data", join(dir, "data"), "--night", date],
        ...["--allow-private-addresses", "--gap-ms", "50"],
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
  };
  const cli = async (args: string[]) => {
    const r = await runMain([...args, "--data", join(dir, "data")], { env });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    fleet = await startFleet();
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
  });

  it("P11, P19, P24, P27: nights 2 and 3 ask the page where it moved (robots.txt + one request), never the old URL; one flag a move; the status and the log say the URL asked", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-perm-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.17" });
      const b = await fleet.server({ host: "127.0.3.18" });
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml");
      // The common http → https move: to another origin (its robots.txt read first, P19).
      mover(a, "/old.rss", 308, () => b.url("/feed.xml"));
      feed(b, "/feed.xml");
      const catalog = writeCatalog(dir, [
        feedEntry("same-origin", a.url("/moved?to=/feed.xml")),
        feedEntry("other-origin", a.url("/old.rss")),
      ]);

      const perNight: { a: string[]; b: string[] }[] = [];
      for (const date of NIGHTS) {
        const [fa, fb] = [a.requests.length, b.requests.length];
        await night(catalog, date);
        perNight.push({ a: paths(a, fa), b: paths(b, fb) });
      }
      // Night 1: the catalog's URLs, their redirects followed (each target's robots.txt first).
      expect([...perNight[0]!.a].sort()).toEqual(
        ["/feed.xml", "/moved?to=/feed.xml", "/old.rss", "/robots.txt"].sort(),
      );
      expect(perNight[0]!.b).toEqual(["/robots.txt", "/feed.xml"]);
      // Nights 2 and 3: no request to the old URLs; each source one request (with its
      // validators), besides robots.txt at most once a day per origin (P16: here the nights
      // run seconds apart, so the copy read on night 1 still serves).
      for (const n of [1, 2]) {
        for (const seen of [perNight[n]!.a, perNight[n]!.b]) {
          expect(seen.filter((p) => p !== "/robots.txt")).toEqual(["/feed.xml (304?)"]);
          expect(seen.length).toBeLessThanOrEqual(2);
        }
      }

      // P24: one flag a move (raised the night it was seen), for a person to update the catalog.
      const flags = JSON.parse(await cli(["flags", "--json"])) as {
        kind: string;
        source: string;
        detail: string;
        night: string;
      }[];
      const moved = flags.filter((f) => f.kind === "moved");
      expect(moved.map((f) => [f.source, f.night]).sort()).toEqual([
        ["other-origin", NIGHTS[0]],
        ["same-origin", NIGHTS[0]],
      ]);
      const same = moved.find((f) => f.source === "same-origin");
      expect(same?.detail).toContain(`${a.url("/moved?to=/feed.xml")} has moved permanently`);
      expect(same?.detail).toContain(a.url("/feed.xml"));
      expect(same?.detail).toContain("update the catalog");

      // The URL actually asked, beside the catalog's, in `nor status`.
      const status = await cli(["status"]);
      const line = status.split("\n").find((l) => l.startsWith("other-origin\t"));
      expect(line).toContain(`at ${b.url("/feed.xml")} (moved permanently)`);
      const json = JSON.parse(await cli(["status", "--json"])) as unknown;
      expect(JSON.stringify(json)).toContain(`"asked":"${a.url("/feed.xml")}"`);

      // The source's public page says the URL asked beside the catalog's.
      const db = await openStore(
        env["NOR_DATABASE_URL"]
          ? { kind: "postgres", url: env["NOR_DATABASE_URL"] }
          : { kind: "sqlite", dir: join(dir, "data") },
      );
      try {
        const app = createApp({
          db: db.db,
          now: () => Date.parse("2026-11-08T15:00:00Z"),
          origin: "https://directory.example",
        });
        const $ = load(await (await app.request("/sources/other-origin")).text());
        const way = $(".way").first();
        expect(way.text()).toContain("moved permanently: asked at");
        expect(
          way
            .find("a")
            .map((_i, e) => $(e).attr("href"))
            .get(),
        ).toEqual([a.url("/old.rss"), b.url("/feed.xml")]);
      } finally {
        await db.close();
      }

      // P27: the direct request's row says why (a page) and the URL asked.
      const log = (await cli(["log", "--jsonl", "--source", "same-origin"]))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { url: string; purpose: string; night?: string });
      const third = log.filter((r) => r.night === NIGHTS[2] && r.purpose !== "robots");
      expect(third.map((r) => [r.purpose, r.url])).toEqual([["page", a.url("/feed.xml")]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P11: a temporary redirect (302) is never remembered: the catalog's URL is asked every night", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-temp-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.19" });
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/temp.rss", 302, () => "/temp.xml");
      feed(a, "/temp.xml");
      const catalog = writeCatalog(dir, [feedEntry("temp", a.url("/temp.rss"))]);
      for (const date of NIGHTS.slice(0, 2)) await night(catalog, date);
      expect(a.hits("/temp.rss")).toHaveLength(2);
      const flags = JSON.parse(await cli(["flags", "--json"])) as { kind: string }[];
      expect(flags.filter((f) => f.kind === "moved")).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("P11: a remembered target that starts answering 404 is forgotten: the next night asks the catalog's URL again", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-gone-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.20" });
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let gone = false;
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml", () => (gone ? "gone" : "ok"));
      const catalog = writeCatalog(dir, [feedEntry("moves", a.url("/moved?to=/feed.xml"))]);
      const seen: string[][] = [];
      for (const [n, date] of NIGHTS.entries()) {
        gone = n === 1;
        const from = a.requests.length;
        await night(catalog, date);
        seen.push(paths(a, from));
      }
      const pages = seen.map((s) => s.filter((p) => p !== "/robots.txt"));
      expect(pages[0]).toEqual(["/moved?to=/feed.xml", "/feed.xml"]);
      // Night 2: the remembered target, asked directly, answers 404: forgotten (asked once).
      expect(pages[1]).toEqual(["/feed.xml (304?)"]);
      // Night 3: back to the catalog's URL, and the move (still there) followed and kept again.
      expect(pages[2]).toEqual(["/moved?to=/feed.xml", "/feed.xml (304?)"]);
      // Still one flag for the move, not one a night.
      const flags = JSON.parse(await cli(["flags", "--json"])) as { kind: string }[];
      expect(flags.filter((f) => f.kind === "moved")).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
  it("P11, P24: a move forgotten (its target gone) and found again to another page is told again, naming the page it is asked at now", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-again-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.23" });
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      let to = "/feed.xml";
      mover(a, "/moved", 301, () => to);
      let gone = false;
      feed(a, "/feed.xml", () => (gone ? "gone" : "ok"));
      feed(a, "/newer.xml");
      const catalog = writeCatalog(dir, [feedEntry("moves", a.url("/moved"))]);
      await night(catalog, NIGHTS[0]!);
      // The site moves the page again: the old target is gone, the catalog's URL leads further.
      gone = true;
      to = "/newer.xml";
      await night(catalog, NIGHTS[1]!);
      await night(catalog, NIGHTS[2]!);
      const flags = JSON.parse(await cli(["flags", "--json"])) as {
        kind: string;
        detail: string;
      }[];
      const moved = flags.filter((f) => f.kind === "moved").map((f) => f.detail);
      // The person is told where the checker asks the page now, not only where it moved first.
      expect(moved.some((d) => d.includes(`to ${a.url("/newer.xml")}`))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
  it("P11, P26: `nor site` for the site a catalog URL moved to does not call it a site no source is on (the checker asks it every night)", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-site-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.24" });
      const b = await fleet.server({ host: "127.0.3.25" });
      for (const s of [a, b]) s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/old.rss", 301, () => b.url("/feed.xml"));
      feed(b, "/feed.xml");
      await night(writeCatalog(dir, [feedEntry("moves", a.url("/old.rss"))]), NIGHTS[0]!);
      // The owner of the site it moved to asks for a path to be left alone.
      const r = await runMain(
        [
          ...["site", "127.0.3.25", "--leave-alone", "/private/"],
          ...["--reason", "asked by mail", "--data", join(dir, "data")],
        ],
        { env },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain("no source in the store is on");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
  it("P11, P6: a source whose id the catalog renames keeps its move: the new id asks the page where it moved, never the old URL, and no second flag", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-renamed-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.22" });
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml");
      const seen: string[][] = [];
      const run = async (id: string, date: string) => {
        const from = a.requests.length;
        await night(writeCatalog(dir, [feedEntry(id, a.url("/moved?to=/feed.xml"))]), date);
        seen.push(paths(a, from).filter((p) => p !== "/robots.txt"));
      };
      await run("before", NIGHTS[0]!);
      // The person renames the source's id (the same government, feed and URL): its history,
      // the move with it, is the new id's (P6).
      await run("after", NIGHTS[1]!);
      expect(seen).toEqual([["/moved?to=/feed.xml", "/feed.xml"], ["/feed.xml (304?)"]]);
      const flags = JSON.parse(await cli(["flags", "--json"])) as {
        kind: string;
        source: string;
      }[];
      expect(flags.filter((f) => f.kind === "moved").map((f) => f.source)).toEqual(["after"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
  it("P11: a catalog that changes the source's URL leaves the move behind: the old URL, listed again later, is asked as written", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-moved-catalog-"));
    env = await store.env(join(dir, "data"));
    try {
      const a = await fleet.server({ host: "127.0.3.21" });
      a.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      mover(a, "/moved", 301, () => "/feed.xml");
      feed(a, "/feed.xml");
      feed(a, "/other.xml");
      const old = () => writeCatalog(dir, [feedEntry("moves", a.url("/moved?to=/feed.xml"))]);
      const seen: string[][] = [];
      const run = async (catalog: string, date: string) => {
        const from = a.requests.length;
        await night(catalog, date);
        seen.push(paths(a, from).filter((p) => p !== "/robots.txt"));
      };
      await run(old(), NIGHTS[0]!);
      // The person updates the catalog (to another address here): asked as written.
      await run(writeCatalog(dir, [feedEntry("moves", a.url("/other.xml"))]), NIGHTS[1]!);
      await run(old(), NIGHTS[2]!);
      expect(seen).toEqual([
        ["/moved?to=/feed.xml", "/feed.xml"],
        ["/other.xml"],
        ["/moved?to=/feed.xml", "/feed.xml (304?)"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
