import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type Clock, systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { discover } from "../../src/night/discover.js";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { dayStart } from "../../src/policy/zone.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { archiveDir, listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { openStore } from "../../src/store/db.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { feedEntry, nightCli, writeCatalog } from "../night/cli-night.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { runMain as nor } from "./cli-capture.js";

/** A new, empty store in `dir`, as `nor catalog import` or a night makes one. */
async function newStore(dir: string): Promise<void> {
  await (await openStore({ kind: "sqlite", dir })).close();
}

describe("nor discover", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let closed: FleetServer;
  let latin: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.4" });
    closed = await fleet.server({ host: "127.0.0.5" });
    site.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(200).end("User-agent: *\nDisallow: /private\n"),
    );
    site.route("/", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<html><head><link rel="alternate" type="application/rss+xml" title="Agendas" href="/RSSFeed.aspx?ModID=65"></head>
         <body><a href="/AgendaCenter">Agendas</a> <a href="/private/Bids.aspx">Bids</a>
         <a href="https://go.boarddocs.com/oh/test/Board.nsf/Public">School board</a> <a href="/about">About</a></body></html>`,
      );
    });
    // A county homepage in windows-1252, named only by its Content-Type.
    latin = await fleet.server({ host: "127.0.0.6" });
    latin.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    latin.route("/", (_q, res) => {
      const html = `<html><head><title>Caf\u00e9 \u2013 County</title></head><body>
        <a href="/AgendaCenter">\u201cCAF\u00c9\u201d Board \u2013 Agendas</a>
        <a href="/Bids.aspx">Caf\u00e9 \u2013 Bids</a></body></html>`;
      const high: Record<string, number> = { "\u2013": 0x96, "\u201c": 0x93, "\u201d": 0x94 };
      const bytes = Buffer.from([...html].map((c) => high[c] ?? c.charCodeAt(0)));
      res.writeHead(200, { "content-type": "text/html; charset=windows-1252" }).end(bytes);
    });
    closed.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(200).end("User-agent: public-records-check\nDisallow: /\n"),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-discover-"));
    // discover logs into a store that is there already (as a night or an import leaves it).
    await newStore(dir);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P6, P18, P27: reads robots.txt and the homepage only, follows no link, and prints candidates with what robots.txt says", async () => {
    const r = await nor([
      "discover",
      site.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
      "--government",
      "village-of-test",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.map((q) => q.path)).toEqual(["/robots.txt", "/"]);
    for (const q of site.requests) expect(q.headers["user-agent"]).toBe(DEFAULT_USER_AGENT);
    const doc = parse(r.stdout) as {
      sources: { url: string; platform?: string; access: string; government: string }[];
    };
    expect(doc.sources.map((s) => [s.access, s.platform ?? null, s.url])).toEqual([
      ["feed", null, site.url("/RSSFeed.aspx?ModID=65")],
      ["page", "civicplus-agendacenter", site.url("/AgendaCenter")],
      ["page", "civicplus-bids", site.url("/private/Bids.aspx")],
      ["api", "boarddocs", "https://go.boarddocs.com/oh/test/Board.nsf/Public"],
    ]);
    expect(doc.sources.every((s) => s.government === "village-of-test")).toBe(true);
    expect(r.stdout).toMatch(/Bids: link on the homepage; robots\.txt disallows it/);
    expect(r.stdout).toMatch(
      /School board: link on the homepage; robots\.txt of its origin not read yet/,
    );
    // P27: both requests are in the log.
    const log = await nor(["log", "--data", dir, "--jsonl"]);
    expect(
      log.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { purpose: string }).purpose),
    ).toEqual(["robots", "page"]);
  }, 60_000);

  it("P6: a windows-1252 homepage named by its Content-Type is read in windows-1252 (the one body decoder)", async () => {
    const r = await nor([
      "discover",
      latin.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);
    expect(r.code, r.stderr).toBe(0);
    // 0xC9 0x94 is valid UTF-8 too ("ɔ"): only the charset says it is "É”".
    expect(r.stdout).toContain(
      "# \u201cCAF\u00c9\u201d Board \u2013 Agendas: link on the homepage",
    );
    expect(r.stdout).toContain("# Caf\u00e9 \u2013 Bids: link on the homepage");
  }, 60_000);

  it("P3: a feed title that holds line breaks stays one comment line: the homepage cannot write an entry of its own into the candidates", async () => {
    const evil = await fleet.server({ host: "127.0.0.7" });
    evil.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    evil.route("/", (_q, res) => {
      const title =
        "Agendas&#10;- id: injected-source&#10;  government: evil&#13;&#10;  url: http://evil.example/feed&#x2028;x";
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<html><head><link rel="alternate" type="application/rss+xml" title="${title}" href="/feed.xml"></head><body></body></html>`,
        );
    });
    const r = await nor([
      "discover",
      evil.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const entries = (parse(r.stdout) as { sources: { id: string; url: string }[] }).sources;
    expect(entries.map((e) => e.url)).toEqual([evil.url("/feed.xml")]);
    expect(r.stdout).not.toMatch(/^\s*- id: injected-source/m);
  }, 60_000);

  it("P6: a homepage that answers a PDF is no web page: nothing is looked for in it, and it says so", async () => {
    const pdf = await fleet.server({ host: "127.0.0.8" });
    pdf.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    pdf.route("/", (_q, res) => {
      res
        .writeHead(200, { "content-type": "application/pdf" })
        .end(`%PDF-1.4 <link rel="alternate" type="application/rss+xml" href="/feed.xml">`);
    });
    const r = await nor([
      "discover",
      pdf.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `# ${pdf.url("/")}: answered application/pdf, not a web page: nothing was looked for in it\n`,
    );
  }, 60_000);

  it("P18: a homepage robots.txt disallows is never requested", async () => {
    const r = await nor([
      "discover",
      closed.url("/"),
      "--data",
      dir,
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/was not read \(disallowed\)/);
    expect(closed.requests.map((q) => q.path)).toEqual(["/robots.txt"]);
  }, 60_000);

  it("P3: a loopback homepage without --allow-private-addresses is not asked, and the message names the option", async () => {
    // A loopback address no earlier test asked (one asked tonight would be answered from the
    // store, P8), where nothing listens: refused before any connection.
    const r = await nor(["discover", "http://127.0.0.9:9/", "--data", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "was not read (blocked-address: 127.0.0.9 is not a public address (loopback): the checker asks one only with --allow-private-addresses",
    );
    // Link-local (cloud metadata) is never asked, the option or not: it is not offered.
    const meta = await nor([
      "discover",
      "http://169.254.169.254/",
      "--data",
      dir,
      "--allow-private-addresses",
    ]);
    expect(meta.code).toBe(1);
    expect(meta.stderr).toContain(
      "169.254.169.254 is not a public address (link-local): the checker never asks one (P3)",
    );
    expect(meta.stderr).not.toContain("--allow-private-addresses");
  }, 60_000);

  it("P3: a homepage carrying a key or token in its query is refused as the catalog refuses it, before anything is asked", async () => {
    const before = site.requests.length;
    for (const q of ["?token=abc", "?x=1&API_KEY=s3cret"]) {
      const r = await nor([
        "discover",
        `${site.origin}/${q}`,
        "--data",
        dir,
        "--allow-private-addresses",
      ]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/carries the credential query parameter "(token|API_KEY)"/);
    }
    expect(site.requests.length).toBe(before);
  }, 60_000);

  it("P3, P8: refused once without --allow-private-addresses, the same night the site is asked once the option is given (the refusal is no answer of the site's)", async () => {
    const fresh = await fleet.server({ host: "127.0.0.7" });
    fresh.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    fresh.route("/", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<a href="/AgendaCenter">Agendas</a>');
    });
    const data = mkdtempSync(join(tmpdir(), "nor-discover-refused-"));
    await newStore(data);
    try {
      const first = await nor(["discover", fresh.url("/"), "--data", data]);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain("blocked-address");
      expect(fresh.requests).toEqual([]);
      const again = await nor([
        "discover",
        fresh.url("/"),
        "--data",
        data,
        "--allow-private-addresses",
      ]);
      expect(again.code, again.stderr).toBe(0);
      expect(fresh.requests.map((q) => q.path)).toEqual(["/robots.txt", "/"]);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  it.skipIf(!postgresUrl)(
    "P8: on PostgreSQL (NOR_DATABASE_URL) what discover reads is kept in the archive of --data, indexed in the shared store, as a night keeps it",
    async () => {
      const fresh = await fleet.server({ host: "127.0.0.8" });
      fresh.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      fresh.route("/", (_q, res) => {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end('<a href="/AgendaCenter">Agendas</a>');
      });
      const pg = postgresFactory(postgresUrl ?? "");
      const data = mkdtempSync(join(tmpdir(), "nor-discover-pg-"));
      try {
        const loc = await pg.fresh();
        if (loc.kind !== "postgres") throw new Error("not PostgreSQL");
        await (await openStore(loc)).close();
        const r = await nor(
          ["discover", fresh.url("/"), "--data", data, "--allow-private-addresses"],
          { env: { NOR_DATABASE_URL: loc.url } },
        );
        expect(r.code, r.stderr).toBe(0);
        expect(listWarcFiles(archiveDir(data))).toHaveLength(1);
        const store = await openStore(loc, { create: false });
        try {
          const c = await latestCapture(store.db, fresh.url("/"));
          expect(c?.url).toBe(fresh.url("/"));
          expect(
            new TextDecoder().decode((await readCapture(archiveDir(data), c!)).body),
          ).toContain("AgendaCenter");
        } finally {
          await store.close();
        }
      } finally {
        await pg.cleanup();
        rmSync(data, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it("P20: a robots.txt a night found unreachable keeps a later discover that day off the origin: not asked again, the homepage not asked (a past night caught up today, whose requests the journal files under its own date); the next day it is asked again", async () => {
    const down = await fleet.server({ host: "127.0.0.9" });
    // Not a 503 (the journal would replay its answer): the connection closed, nothing kept.
    down.route("/robots.txt", (q) => void q.socket.destroy());
    down.route("/", (_q, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end('<a href="/AgendaCenter">A</a>');
    });
    const data = mkdtempSync(join(tmpdir(), "nor-discover-unreachable-"));
    try {
      // Yesterday's night, caught up today (New York dates), at an end before discover runs.
      const catalog = writeCatalog(data, [feedEntry("down-feed", down.url("/feed.xml"))]);
      const night = await nightCli(catalog, data, addDays(nightOf(Date.now()), -1));
      expect(night.code, night.stderr).toBe(0);
      expect(down.requests.map((q) => q.path)).toEqual(["/robots.txt"]);
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        const found = await new SqlRobotsCache(store.db).get(down.origin);
        expect(found).toMatchObject({ state: "unreachable" });
        const day = nightOf(found?.fetchedAt ?? Number.NaN);
        // A past night's: its name is not the day it was found on (whichever day that was).
        expect(found?.night).toBeDefined();
        expect(found?.night).not.toBe(day);
        // discover's clock, injected: noon in New York on the day the night found it (the hour
        // aside, the same day whenever this test runs), then noon the day after.
        const noonOf = (date: string): Clock => {
          const [y, m, d] = date.split("-").map(Number) as [number, number, number];
          const start = dayStart(y, m, d, "America/New_York") + 12 * 60 * 60 * 1000;
          const t0 = Date.now();
          return { now: () => start + (Date.now() - t0), sleep: systemClock.sleep };
        };
        const run = (clock: Clock) =>
          discover(store, down.url("/"), {
            clock,
            ids: randomIds,
            allowPrivateAddresses: true,
            gapMs: 50,
          });
        expect(await run(noonOf(day))).toMatchObject({
          kind: "not-read",
          outcome: { kind: "robots-unavailable" },
        });
        expect(down.requests.map((q) => q.path)).toEqual(["/robots.txt"]);
        // The next day the answer no longer holds: robots.txt is asked again (and the homepage
        // still not, the file unreachable again).
        expect(await run(noonOf(addDays(day, 1)))).toMatchObject({
          kind: "not-read",
          outcome: { kind: "robots-unavailable" },
        });
        expect(down.requests.map((q) => q.path)).toEqual(["/robots.txt", "/robots.txt"]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  it("P16, P18: what robots.txt says of another host's candidate comes from a copy the rules let stand, with its age; a copy too old to go by judges nothing", async () => {
    const home = await fleet.server({ host: "127.0.0.10" });
    const old = await fleet.server({ host: "127.0.0.11" });
    const recent = await fleet.server({ host: "127.0.0.12" });
    home.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    home.route("/", (_q, res) => {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<html><head><link rel="alternate" type="application/rss+xml" title="Old host" href="${old.url("/feed.xml")}"><link rel="alternate" type="application/rss+xml" title="Recent host" href="${recent.url("/feed.xml")}"></head><body></body></html>`,
        );
    });
    const data = mkdtempSync(join(tmpdir(), "nor-discover-age-"));
    try {
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        const cache = new SqlRobotsCache(store.db);
        const hour = 60 * 60 * 1000;
        // Both allow everything; one was read three days ago, one ninety minutes ago.
        await cache.put({
          origin: old.origin,
          fetchedAt: Date.now() - 72 * hour,
          state: "rules",
          status: 200,
          body: "User-agent: *\nAllow: /\n",
        });
        await cache.put({
          origin: recent.origin,
          fetchedAt: Date.now() - 1.5 * hour,
          state: "rules",
          status: 200,
          body: "User-agent: *\nAllow: /\n",
        });
      } finally {
        await store.close();
      }
      const r = await nor([
        "discover",
        home.url("/"),
        "--data",
        data,
        "--allow-private-addresses",
        "--gap-ms",
        "50",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /# Old host: advertised feed; robots\.txt of its origin last read \d+ days ago, too old to go by; not judged until it is read again\n/,
      );
      expect(r.stdout).not.toMatch(/Old host: advertised feed; robots\.txt allows it/);
      expect(r.stdout).toMatch(
        /# Recent host: advertised feed; robots\.txt allows it \(as read \d+ (?:hour|minute)s? ago\)\n/,
      );
      // Nothing was asked of either other host.
      expect(old.requests).toEqual([]);
      expect(recent.requests).toEqual([]);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});
