/**
 * `nor night` (src/night/compose.ts) gives its journal's group commit to the fetcher, for the
 * robots.txt answers it stores, and to the archive, for its capture rows: those writes share
 * the journal's transactions and fsyncs instead of committing alone. Seen from SQLite: each such
 * insert runs inside a transaction the group opened (BEGIN IMMEDIATE), never as a statement
 * committing on its own. A statement run alone cannot be inside another's transaction here:
 * the store has one connection, which a transaction holds until it commits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { robots } from "../fleet/routes.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

type Fn = (
  this: { source: string; database: { inTransaction: boolean } },
  ...a: unknown[]
) => unknown;

describe("`nor night`'s robots.txt answers and capture rows in the journal's group commit", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({});
    site.route("/robots.txt", robots("User-agent: *\nDisallow: /private/\n"));
    for (const n of [1, 2, 3])
      site.route(
        `/${n}.rss`,
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 2, `f${n}`)),
      );
    dir = mkdtempSync(join(tmpdir(), "nor-night-group-"));
    catalog = writeCatalog(
      dir,
      [1, 2, 3].map((n) => [
        `id: feed-${n}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(`/${n}.rss`)}`,
      ]),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P8, P16: every robots.txt answer and capture row a night stores is written inside a shared transaction, none committed alone", async () => {
    const scratch = new Database(":memory:");
    const proto = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<string, Fn>;
    scratch.close();
    const real = proto["run"] as Fn;
    const seen: { table: string; inTransaction: boolean }[] = [];
    proto["run"] = function (this, ...args) {
      const m = /^insert into "(captures|robots_cache)"/.exec(this.source);
      if (m) seen.push({ table: m[1] as string, inTransaction: this.database.inTransaction });
      return real.apply(this, args);
    };
    let r: Awaited<ReturnType<typeof nightCli>>;
    try {
      r = await nightCli(catalog, join(dir, "data"), "2026-11-05");
    } finally {
      proto["run"] = real;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.map((q) => q.path).sort()).toEqual([
      "/1.rss",
      "/2.rss",
      "/3.rss",
      "/robots.txt",
    ]);
    expect(seen.filter((s) => s.table === "robots_cache").length).toBe(1);
    expect(seen.filter((s) => s.table === "captures").length).toBeGreaterThan(0);
    expect(seen.filter((s) => !s.inTransaction)).toEqual([]);
  }, 60_000);

  it("P8, P27: a capture row queued behind its request's completion that cannot be inserted stops the night as the archive's failure, the request's row completed", async () => {
    const scratch = new Database(":memory:");
    const proto = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<string, Fn>;
    scratch.close();
    const real = proto["run"] as Fn;
    let refused = 0;
    proto["run"] = function (this, ...args) {
      if (/^insert into "captures"/.test(this.source)) {
        refused++;
        throw new Error("disk I/O error (the test's)");
      }
      return real.apply(this, args);
    };
    const data = join(dir, "data-refused");
    let r: Awaited<ReturnType<typeof nightCli>>;
    try {
      r = await nightCli(catalog, data, "2026-11-05");
    } finally {
      proto["run"] = real;
    }
    expect(refused).toBeGreaterThan(0);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /could not be kept in the archive \(P8\): disk I\/O error \(the test's\)/,
    );
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const rows = db.prepare("select outcome, ended_at from request_log").all() as {
        outcome: string;
        ended_at: string | null;
      }[];
      expect(rows.length).toBeGreaterThan(0);
      // Every row has its end: none left in flight (the site's gap counts from it, P10).
      expect(rows.filter((x) => x.outcome === "in-flight" || x.ended_at === null)).toEqual([]);
      expect(db.prepare("select count(*) as n from captures").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 60_000);
});
