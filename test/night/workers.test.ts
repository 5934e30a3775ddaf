import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, type SeenRequest, startFleet } from "../fleet/fleet.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { feedEntry, rss, writeCatalog } from "./cli-night.js";

/**
 * Several workers on one PostgreSQL store: three `nor night` processes (as on three machines)
 * join the same night; one is SIGKILLed mid-night. Judged from the servers' side: never two
 * requests in flight to a site, never a gap under the floor, every source checked exactly
 * once, and the dead worker's sites finished by the others.
 */
const REPO = join(import.meta.dirname, "..", "..");
const NIGHT = "2026-11-05";
const GAP_MS = 60;
const SITES = 6;
const PER_SITE = 5;
const DURABLE_MS = 250;

interface Seen extends SeenRequest {
  finishedAt?: number;
}

describe.skipIf(!postgresUrl)("several workers on PostgreSQL (P9, P10, P13)", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let fleet: Fleet;
  let dir: string;
  let url: string;
  const sites: FleetServer[] = [];

  beforeAll(async () => {
    fleet = await startFleet({ now: () => Date.now() });
    dir = mkdtempSync(join(tmpdir(), "nor-workers-"));
    const loc = await factory.fresh();
    if (loc.kind !== "postgres") throw new Error("expected PostgreSQL");
    url = loc.url;
    for (let i = 0; i < SITES; i++) {
      const s = await fleet.server();
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      for (let n = 0; n < PER_SITE; n++) {
        s.route(`/feed/${n}.xml`, (_q, res, ctx) => {
          const seen = ctx.seen as Seen;
          res.once("finish", () => {
            seen.finishedAt = Date.now();
          });
          // Slow enough that the three workers overlap in time.
          setTimeout(
            () =>
              void res
                .writeHead(200, { "content-type": "application/rss+xml" })
                .end(rss(s.origin, 2, `s${i}f${n}`)),
            150,
          );
        });
      }
      sites.push(s);
    }
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await factory.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function worker(catalog: string): { p: ChildProcess; done: Promise<number | null> } {
    const p = spawn(
      process.execPath,
      [
        join(REPO, "bin", "nor.js"),
        "night",
        "--catalog",
        catalog,
        "--data",
        dir,
        "--night",
        NIGHT,
        "--concurrency",
        "2",
        "--allow-private-addresses",
        "--gap-ms",
        String(GAP_MS),
      ],
      { cwd: REPO, env: { ...process.env, NOR_DATABASE_URL: url }, stdio: "ignore" },
    );
    const done = new Promise<number | null>((r) => p.once("exit", (code) => r(code)));
    const timer = setTimeout(() => p.kill("SIGKILL"), 90_000);
    void done.then(() => clearTimeout(timer));
    return { p, done };
  }

  it("P9, P10, P13: three workers share one night; one is SIGKILLed; the others finish its sites, each source checked once", async () => {
    const sources: string[][] = [];
    sites.forEach((s, i) => {
      for (let n = 0; n < PER_SITE; n++) {
        sources.push(feedEntry(`s${i}-f${n}`, s.url(`/feed/${n}.xml`)));
      }
    });
    const catalog = writeCatalog(dir, sources);
    const a = worker(catalog);
    const b = worker(catalog);
    const c = worker(catalog);
    // Kill b once the night is well under way (a third of the feeds asked).
    const feeds = () =>
      sites.flatMap((s) => s.requests).filter((r) => r.path.startsWith("/feed/")).length;
    for (let i = 0; i < 3000 && feeds() < (SITES * PER_SITE) / 3; i++)
      await new Promise((r) => setTimeout(r, 10));
    const killedAt = Date.now();
    b.p.kill("SIGKILL");
    expect(await a.done).toBe(0);
    expect(await c.done).toBe(0);
    await b.done;

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = (
        await client.query("select source_id, outcome from night_sources where night = $1", [NIGHT])
      ).rows as { source_id: string; outcome: string }[];
      expect(rows).toHaveLength(SITES * PER_SITE);
      expect(new Set(rows.map((r) => r.source_id)).size).toBe(SITES * PER_SITE);
      expect(rows.filter((r) => r.outcome !== "ok")).toEqual([]);
      const records = (await client.query("select count(*)::int n from records")).rows[0] as {
        n: number;
      };
      expect(records.n).toBe(SITES * PER_SITE * 2);
      // All three worked, and a site the killed worker was on was finished by another.
      const log = (
        await client.query("select site, holder, started_at from request_log order by id")
      ).rows as { site: string; holder: string; started_at: string }[];
      const holders = new Set(log.map((r) => r.holder));
      expect(holders.size).toBe(3);
      const dead = log.find((r) => r.holder.split(":")[1] === String(b.p.pid))?.holder;
      expect(dead).toBeDefined();
      const deadSites = new Set(log.filter((r) => r.holder === dead).map((r) => r.site));
      const takenOver = [...deadSites].filter((site) => {
        const last = log.filter((r) => r.site === site && r.holder === dead).at(-1);
        return log.some(
          (r) => r.site === site && r.holder !== dead && last && r.started_at > last.started_at,
        );
      });
      expect(takenOver.length).toBeGreaterThan(0);
    } finally {
      await client.end();
    }

    for (const s of sites) {
      const reqs = [...s.requests].sort((x, y) => x.startedAt - y.startedAt) as Seen[];
      for (let i = 1; i < reqs.length; i++) {
        const gap = (reqs[i] as Seen).startedAt - (reqs[i - 1] as Seen).endedAt;
        expect(gap, `${s.host} ${reqs[i]?.path}`).toBeGreaterThanOrEqual(GAP_MS - 1);
      }
      // Each feed asked once, unless the killed worker had it in flight (or not yet durable).
      const byPath = new Map<string, Seen[]>();
      for (const r of reqs) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
      for (const [path, list] of byPath) {
        if (list.length === 1) continue;
        expect(list.length, `${s.host}${path}`).toBe(2);
        const first = list[0] as Seen;
        expect(
          first.finishedAt === undefined || killedAt <= first.finishedAt + DURABLE_MS,
          `${s.host}${path} asked twice`,
        ).toBe(true);
      }
    }
  }, 150_000);
});

describe("nor night --workers on SQLite (P9, P10)", () => {
  it("P9, P10: --workers 3 runs three processes on one store: each source checked once, never two in flight to a site", async () => {
    const fleet = await startFleet({ now: () => Date.now() });
    const dir = mkdtempSync(join(tmpdir(), "nor-workers-sqlite-"));
    try {
      const sites: FleetServer[] = [];
      const sources: string[][] = [];
      for (let i = 0; i < 4; i++) {
        const s = await fleet.server();
        s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        for (let n = 0; n < 5; n++) {
          s.route(`/feed/${n}.xml`, (_q, res) => {
            setTimeout(
              () =>
                void res
                  .writeHead(200, { "content-type": "application/rss+xml" })
                  .end(rss(s.origin, 1, `s${i}f${n}`)),
              300,
            );
          });
          sources.push(feedEntry(`s${i}-f${n}`, s.url(`/feed/${n}.xml`)));
        }
        sites.push(s);
      }
      const catalog = writeCatalog(dir, sources);
      const env = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const p = spawn(
        process.execPath,
        [
          join(REPO, "bin", "nor.js"),
          "night",
          "--catalog",
          catalog,
          "--data",
          dir,
          "--night",
          NIGHT,
          "--workers",
          "3",
          "--concurrency",
          "1",
          "--allow-private-addresses",
          "--gap-ms",
          String(GAP_MS),
        ],
        { cwd: REPO, env, stdio: "ignore" },
      );
      const timer = setTimeout(() => p.kill("SIGKILL"), 90_000);
      const code = await new Promise<number | null>((r) => p.once("exit", (c) => r(c)));
      clearTimeout(timer);
      expect(code).toBe(0);
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(join(dir, "nor.db"), { readonly: true });
      const outcomes = db.prepare("select source_id, outcome from night_sources").all() as {
        outcome: string;
      }[];
      db.close();
      expect(outcomes).toHaveLength(20);
      expect(outcomes.every((o) => o.outcome === "ok")).toBe(true);
      for (const s of sites) {
        expect(s.requests.map((r) => r.path).sort()).toEqual([
          "/feed/0.xml",
          "/feed/1.xml",
          "/feed/2.xml",
          "/feed/3.xml",
          "/feed/4.xml",
          "/robots.txt",
        ]);
        const reqs = [...s.requests].sort((x, y) => x.startedAt - y.startedAt);
        for (let i = 1; i < reqs.length; i++)
          expect(
            (reqs[i] as SeenRequest).startedAt - (reqs[i - 1] as SeenRequest).endedAt,
          ).toBeGreaterThanOrEqual(GAP_MS - 1);
      }
    } finally {
      await fleet.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
