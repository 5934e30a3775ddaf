import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "../night/cli-night.js";
import { postgresFactory } from "../store/stores.js";

/**
 * rev3: `nor archive forget` on PostgreSQL, a page's latest copy in the lost file and an older
 * one in another: what it took out (the copies and the revisits of them) is kept, and
 * `nor reparse` reads no older copy of the page as its list, as on SQLite.
 */
const base = process.env["NOR_TEST_POSTGRES_URL"];
const factory = base ? postgresFactory(base) : undefined;
const dir = mkdtempSync(join(tmpdir(), "nor-rev3-forget-pg-"));
let fleet: Fleet | undefined;

afterAll(async () => {
  await fleet?.close();
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("rev3: nor archive forget then nor reparse on PostgreSQL", () => {
  it.skipIf(!factory)(
    "P8 (postgres): after nor archive forget --sole-archive of the file holding a page's latest copy and a revisit's original, what it took out is kept, and nor reparse calls none of the lost copy's records removed",
    async () => {
      const loc = await factory?.fresh();
      const env = { NOR_DATABASE_URL: (loc as { url: string }).url };
      fleet = await startFleet();
      const site = await fleet.server();
      let items = 2;
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      site.route(
        "/feed.xml",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, items)),
      );
      site.route(
        "/same.xml",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 1, "same")),
      );
      const data = join(dir, "data");
      const entry = (id: string, path: string) => [
        `id: ${id}`,
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url(path)}`,
      ];
      const catalog = writeCatalog(dir, [
        entry("agendas", "/feed.xml"),
        entry("same", "/same.xml"),
      ]);
      const night = (days: number) =>
        runMain(
          [
            "night",
            "--catalog",
            catalog,
            "--data",
            data,
            "--night",
            addDays(nightOf(Date.now()), days),
            "--allow-private-addresses",
            "--gap-ms",
            "50",
          ],
          { env },
        );
      const archive = join(data, "archive");
      const warcs = () => readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));
      expect((await night(-3)).code).toBe(0);
      const first = warcs()[0] as string;
      expect((await night(-2)).code).toBe(0);
      items = 3;
      expect((await night(-1)).code).toBe(0);
      const later = warcs().filter((n) => n !== first);
      expect(later.length).toBe(2);
      const c = new pg.Client({ connectionString: env.NOR_DATABASE_URL });
      await c.connect();
      const n = async (q: string, ...args: unknown[]) => Number((await c.query(q, args)).rows[0].n);
      try {
        // The first file lost: the agendas page's second copy (a revisit of it) is in another.
        const copies = await n("select count(*) as n from captures where file = $1", first);
        const revisits = await n(
          "select count(*) as n from captures where refers_file = $1 and file <> $1",
          first,
        );
        expect(revisits).toBeGreaterThan(0);
        rmSync(join(archive, first));
        const f = await runMain(["archive", "forget", first, "--data", data, "--sole-archive"], {
          env,
        });
        expect(f.code, f.stderr).toBe(0);
        expect(await n("select count(*) as n from forgotten_copies where file = $1", first)).toBe(
          copies + revisits,
        );
        const r = await runMain(["reparse", "--data", data, "--catalog", catalog], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).not.toMatch(/would remove [1-9]/);
        // The same page's copies were all in the lost file or revisits of it: not read, said.
        expect(r.stdout).toContain(`forgotten: ${site.url("/same.xml")}: its latest copy`);
      } finally {
        await c.end();
      }
    },
    90_000,
  );
});
