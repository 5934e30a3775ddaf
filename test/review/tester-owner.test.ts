/**
 * Found from outside, a site owner's side (tester-owner): what an owner asks of the operator,
 * answered with `nor log` and `nor site`, run in this process against a night that asked a
 * loopback site.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { feedEntry, nightCli, nightProcess, rss, writeCatalog } from "../night/cli-night.js";

describe("found from outside, a site owner's side (tester-owner)", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server();
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    const feed = (_q: unknown, res: ServerResponse) =>
      void res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss(site.origin, 1, "x"));
    site.route("/public%20notices/feed.xml", feed);
    site.route("/caf%C3%A9/feed.xml", feed);
    dir = mkdtempSync(join(tmpdir(), "nor-tester-owner-"));
    const catalog = writeCatalog(dir, [
      feedEntry("notices", site.url("/public%20notices/feed.xml")),
      feedEntry("cafe", site.url("/café/feed.xml")),
    ]);
    const r = await nightCli(catalog, dir, "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The URLs `nor log --url-contains TEXT` lists for the store (none: "no attempts match"). */
  const found = async (text: string) => {
    const r = await runMain(["log", "--data", dir, "--jsonl", "--url-contains", text]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => (JSON.parse(l) as { url: string }).url);
  };

  it("P10: nor site --gap under the 2 s floor by a fraction of a millisecond (1999.6ms) is refused (exit 2) naming the floor, never rounded up to it and recorded", async () => {
    for (const gap of ["1999.6ms", "1.9999s"]) {
      const r = await runMain(["site", site.host, "--data", dir, "--gap", gap, "--reason", "x"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--gap: ${gap} is under the 2 s floor (P10)`);
    }
    const list = await runMain(["site", site.host, "--data", dir, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toContain('"kind":"gap"');
    // The floor itself, written in any unit, is a gap (held before the fix too).
    const floor = await runMain([
      "site",
      site.host,
      "--data",
      dir,
      "--gap",
      "2000ms",
      "--reason",
      "x",
    ]);
    expect(floor.code, floor.stderr).toBe(0);
    const cleared = await runMain(["site", site.host, "--data", dir, "--clear-gap"]);
    expect(cleared.code, cleared.stderr).toBe(0);
  });

  it("P27: nor log --site for a site the log never asked (mistyped, or another program under the checker's name) says so beside 'no attempts match'; a site asked at other times does not", async () => {
    const day = ["--since", "2026-11-05", "--until", "2026-11-05"];
    const never = await runMain(["log", "--data", dir, "--site", "127.0.0.9", ...day]);
    expect(never.code, never.stderr).toBe(0);
    expect(never.stdout).toBe("no attempts match\n");
    expect(never.stderr).toContain("the log holds no request to 127.0.0.9 at any time");
    // The night above asked this one today, not on Nov 5: nothing that day, and no note.
    const other = await runMain(["log", "--data", dir, "--site", site.host, ...day]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toBe("no attempts match\n");
    expect(other.stderr).toBe("");
    // --jsonl: nothing on stdout, the note on stderr all the same.
    const json = await runMain(["log", "--data", dir, "--site", "127.0.0.9", "--jsonl"]);
    expect(json.stdout).toBe("");
    expect(json.stderr).toContain("the log holds no request to 127.0.0.9 at any time");
  });

  it("P27: nor log --url-contains finds a page whose address holds a space or a non-ASCII letter when the owner writes it as a browser shows it (public notices, café), as when written percent-encoded", async () => {
    const notices = site.url("/public%20notices/feed.xml");
    const cafe = site.url("/caf%C3%A9/feed.xml");
    // As the request line and the log write it: found (held before the fix too).
    expect(await found("/public%20notices/")).toEqual([notices]);
    expect(await found("/caf%c3%a9/")).toEqual([cafe]);
    // As the owner's browser shows the address: the same requests.
    expect(await found("/public notices/")).toEqual([notices]);
    expect(await found("/café/feed")).toEqual([cafe]);
    // The whole address pasted from the browser's bar: its scheme in capitals, its path as the
    // bar shows it, and a fragment (never sent).
    const bar = cafe.replace("http://", "HTTP://").replace("/caf%C3%A9/", "/café/");
    expect(await found(`${bar}#latest`)).toEqual([cafe]);
  });
});

/**
 * An owner writes about the host they know (`www.owner-test.gov`, or a page's address on
 * `records.owner-test.gov`); the checker asks both hostnames of their one site (P9). What they
 * ask, set while a night runs, holds on both from the next request on. Both hostnames are
 * pinned by --resolve to two loopback servers (one port each); the night keeps a 50 ms gap.
 */
describe("an owner's request for a site the checker reaches on two hostnames (tester-owner)", () => {
  let fleet: Fleet;
  const dirs: string[] = [];
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /**
   * Two feeds on each hostname; `onFirst` runs (and finishes) before the first feed asked is
   * answered. Every request the two servers saw, and each source's outcome.
   */
  async function night(onFirst: (dir: string) => Promise<void>) {
    const dir = mkdtempSync(join(tmpdir(), "nor-tester-owner-"));
    dirs.push(dir);
    let first = true;
    const pins: string[] = [];
    const sources: string[][] = [];
    const servers: FleetServer[] = [];
    for (const name of ["www", "records"]) {
      const s = await fleet.server();
      servers.push(s);
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      const port = new URL(s.origin).port;
      pins.push("--resolve", `${name}.owner-test.gov:${port}:${s.host}`);
      for (const n of [1, 2]) {
        s.route(`/feed/${n}.xml`, async (_q, res) => {
          if (first) {
            first = false;
            await onFirst(dir);
          }
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(`http://${name}.owner-test.gov:${port}`, 1, `${name}${n}`));
        });
        sources.push(
          feedEntry(`${name}-f${n}`, `http://${name}.owner-test.gov:${port}/feed/${n}.xml`),
        );
      }
    }
    const r = await nightCli(writeCatalog(dir, sources), dir, "2026-11-05", pins);
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    const outcomes = db
      .prepare("select source_id, outcome, reason from night_sources order by source_id")
      .all() as { source_id: string; outcome: string; reason: string | null }[];
    db.close();
    const seen = servers.flatMap((s) => s.requests).sort((a, b) => a.startedAt - b.startedAt);
    return { seen, outcomes };
  }

  const nor = async (args: string[]) => {
    const r = await runMain(args);
    expect(r.code, r.stderr).toBe(0);
  };

  it("P9, P10: a gap asked for by a page's address on records.owner-test.gov (nor site URL --gap 2s) holds between requests to both hostnames, robots.txt included, from the next request on", async () => {
    const { seen, outcomes } = await night((dir) =>
      nor([
        "site",
        "https://records.owner-test.gov/minutes/2026",
        "--data",
        dir,
        "--gap",
        // The floor itself: forty times the 50 ms this night keeps on loopback.
        "2s",
        "--reason",
        "owner, e-mail of Nov 5",
      ]),
    );
    expect(outcomes.map((o) => o.outcome)).toEqual(["ok", "ok", "ok", "ok"]);
    // From the first feed asked (answered after the rule was set) on, whichever host.
    const from = seen.findIndex((r) => r.path.startsWith("/feed/"));
    const after = seen.slice(from);
    expect(after.filter((r) => r.path.startsWith("/feed/"))).toHaveLength(4);
    // The other hostname's robots.txt, asked after the rule, keeps the gap too.
    expect(after.filter((r) => r.path === "/robots.txt")).toHaveLength(1);
    for (const g of gaps(after)) expect(g).toBeGreaterThanOrEqual(2000);
  }, 60_000);

  it("P9, P24, P26: the whole site not read, named as the owner typed their host (WWW.Owner-Test.GOV.), while the night runs: nothing more is sent to either hostname, and every source not asked is left alone at the owner's request, never a no", async () => {
    const { seen, outcomes } = await night((dir) =>
      nor(["site", "WWW.Owner-Test.GOV.", "--data", dir, "--not-read", "--reason", "owner"]),
    );
    // robots.txt and the feed on its way when the request came; nothing after, on either host.
    expect(seen.map((r) => r.path)).toEqual(["/robots.txt", expect.stringMatching(/^\/feed\//)]);
    const asked = outcomes.filter((o) => o.outcome === "ok");
    expect(asked).toHaveLength(1);
    for (const o of outcomes.filter((x) => x.outcome !== "ok")) {
      expect(o.outcome).toBe("left-alone");
      expect(o.reason).toMatch(/^the site's owner asked not to be read \(.*: owner\)$/);
    }
  }, 60_000);
});

/**
 * "Every request honours it from the next one on, in every running process": the night here is
 * `node bin/nor.js night --workers 2` (its own processes, as on the operator's machine), and
 * `nor site` runs in this test's process while one of them waits for a feed's answer.
 */
describe("an owner's request set while nor night --workers 2 runs in processes of its own (tester-owner)", () => {
  let fleet: Fleet;
  let dir: string | undefined;
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P10, P18, P26: a path left alone and a longer gap, set while the night's workers run, hold from the next request on; the other site is read as ever", async () => {
    const data = mkdtempSync(join(tmpdir(), "nor-tester-owner-"));
    dir = data;
    const owner = await fleet.server();
    const other = await fleet.server();
    let first = true;
    const sources: string[][] = [];
    for (const [i, s] of [owner, other].entries()) {
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      for (const n of [1, 2, 3, 4]) {
        s.route(`/feed/${n}.xml`, async (_q, res) => {
          if (s === owner && first) {
            first = false;
            const r = await runMain([
              "site",
              owner.host,
              "--data",
              data,
              "--leave-alone",
              "/feed/3",
              "--gap",
              "2s",
              "--reason",
              "owner, e-mail of Nov 5",
            ]);
            expect(r.code, r.stderr).toBe(0);
          }
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(s.origin, 1, `s${i}f${n}`));
        });
        sources.push(feedEntry(`s${i}-f${n}`, s.url(`/feed/${n}.xml`)));
      }
    }
    const r = await nightProcess(writeCatalog(data, sources), data, "2026-11-05", [
      "--workers",
      "2",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    const outcomes = db
      .prepare("select source_id, outcome from night_sources order by source_id")
      .all() as { source_id: string; outcome: string }[];
    db.close();
    expect(outcomes.map((o) => `${o.source_id} ${o.outcome}`)).toEqual([
      "s0-f1 ok",
      "s0-f2 ok",
      "s0-f3 left-alone",
      "s0-f4 ok",
      "s1-f1 ok",
      "s1-f2 ok",
      "s1-f3 ok",
      "s1-f4 ok",
    ]);
    const asked = [...owner.requests].sort((a, b) => a.startedAt - b.startedAt);
    expect(asked.map((q) => q.path).filter((p) => p.startsWith("/feed/3"))).toEqual([]);
    // From the first feed (answered after the rule was set) on: at least 2 s apart.
    const from = asked.findIndex((q) => q.path.startsWith("/feed/"));
    for (const g of gaps(asked.slice(from))) expect(g).toBeGreaterThanOrEqual(2000);
    expect(other.requests.map((q) => q.path).sort()).toEqual([
      "/feed/1.xml",
      "/feed/2.xml",
      "/feed/3.xml",
      "/feed/4.xml",
      "/robots.txt",
    ]);
  }, 120_000);
});

/** docs/operations.md: "Undoing it (`--read`) works the other way only from the next night". */
describe("a site read again (nor site --read) after a night left it alone (tester-owner)", () => {
  let fleet: Fleet;
  let dir: string | undefined;
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P24, P26: the night's left-alone outcomes stand (running that night again asks nothing); the next night reads every source", async () => {
    const data = mkdtempSync(join(tmpdir(), "nor-tester-owner-"));
    dir = data;
    const s = await fleet.server();
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    let first = true;
    for (const n of [1, 2, 3]) {
      s.route(`/feed/${n}.xml`, async (_q, res) => {
        if (first) {
          first = false;
          const r = await runMain([
            "site",
            s.host,
            "--data",
            data,
            "--not-read",
            "--reason",
            "owner",
          ]);
          expect(r.code, r.stderr).toBe(0);
        }
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(s.origin, 1, `f${n}`));
      });
    }
    const catalog = writeCatalog(
      data,
      [1, 2, 3].map((n) => feedEntry(`f${n}`, s.url(`/feed/${n}.xml`))),
    );
    const outcomes = (night: string) => {
      const db = new Database(join(data, "nor.db"), { readonly: true });
      const rows = db
        .prepare("select source_id, outcome from night_sources where night = ? order by source_id")
        .all(night) as { source_id: string; outcome: string }[];
      db.close();
      return rows.map((o) => `${o.source_id} ${o.outcome}`);
    };
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    expect(outcomes("2026-11-05")).toEqual(["f1 ok", "f2 left-alone", "f3 left-alone"]);
    const read = await runMain(["site", s.host, "--data", data, "--read"]);
    expect(read.code, read.stderr).toBe(0);
    const before = s.requests.length;
    // The same night again: over, its outcomes as they were, nothing asked.
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    expect(s.requests).toHaveLength(before);
    expect(outcomes("2026-11-05")).toEqual(["f1 ok", "f2 left-alone", "f3 left-alone"]);
    // The next night reads them all.
    expect((await nightCli(catalog, data, "2026-11-06")).code).toBe(0);
    expect(outcomes("2026-11-06")).toEqual(["f1 ok", "f2 ok", "f3 ok"]);
    expect(
      s.requests
        .slice(before)
        .map((q) => q.path)
        .filter((p) => p.startsWith("/feed/"))
        .sort(),
    ).toEqual(["/feed/1.xml", "/feed/2.xml", "/feed/3.xml"]);
  }, 60_000);
});
