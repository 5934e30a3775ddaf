import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "../night/cli-night.js";
import { postgresFactory } from "../store/stores.js";
import { runMain } from "./cli-capture.js";

/**
 * `nor archive forget` on PostgreSQL (docs/operations.md "Backups"): each machine may keep an
 * archive of its own beside the shared index, so a file not in this machine's directory is no
 * sign of a lost one. It is forgotten only when the person says this archive is the store's
 * only one (--sole-archive); without it, refused (exit 2), nothing changed.
 */
const base = process.env["NOR_TEST_POSTGRES_URL"];
const factory = base ? postgresFactory(base) : undefined;
const dir = mkdtempSync(join(tmpdir(), "nor-archive-forget-pg-"));
let fleet: Fleet | undefined;

afterAll(async () => {
  await fleet?.close();
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("nor archive forget on PostgreSQL", () => {
  it.skipIf(!factory)(
    "P8: on PostgreSQL a lost file is forgotten only with --sole-archive (another machine's archive may hold it); then nor archive verify passes",
    async () => {
      const loc = await factory?.fresh();
      const url = (loc as { url: string }).url;
      const env = { NOR_DATABASE_URL: url };
      fleet = await startFleet();
      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      site.route(
        "/feed.xml",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(site.origin, 2)),
      );
      const data = join(dir, "data");
      const catalog = writeCatalog(dir, [
        [
          "id: agendas",
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${site.url("/feed.xml")}`,
        ],
      ]);
      const night = await runMain(
        [
          "night",
          "--catalog",
          catalog,
          "--data",
          data,
          "--night",
          addDays(nightOf(Date.now()), -2),
          "--allow-private-addresses",
          "--gap-ms",
          "50",
        ],
        { env },
      );
      expect(night.code, night.stderr).toBe(0);
      const archive = join(data, "archive");
      const [file] = readdirSync(archive).filter((n) => n.endsWith(".warc.gz"));
      expect(file).toBeDefined();
      const lost = file as string;
      rmSync(join(archive, lost));
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const rows = async () =>
        Number((await c.query("select count(*) as n from captures")).rows[0].n);
      try {
        const copies = await rows();
        expect(copies).toBeGreaterThan(0);
        const refused = await runMain(["archive", "forget", lost, "--data", data], { env });
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`${lost} is not in the archive at ${archive}`);
        expect(refused.stderr).toContain("another machine's");
        expect(refused.stderr).toContain("--sole-archive");
        expect(await rows()).toBe(copies);
        // A typo is said as one, with --sole-archive too; nothing changed.
        const typo = await runMain(
          ["archive", "forget", lost, "nor-typo.warc.gz", "--data", data, "--sole-archive"],
          { env },
        );
        expect(typo.code, typo.stderr).toBe(2);
        expect(typo.stderr).toContain("the index names no file nor-typo.warc.gz");
        expect(await rows()).toBe(copies);
        const f = await runMain(["archive", "forget", lost, "--data", data, "--sole-archive"], {
          env,
        });
        expect(f.code, f.stderr).toBe(0);
        expect(f.stdout).toContain(
          `forgot ${lost}: ${copies} stored ${copies === 1 ? "copy" : "copies"}`,
        );
        expect(await rows()).toBe(0);
        const v = await runMain(["archive", "verify", "--data", data], { env });
        expect(v.code, v.stdout).toBe(0);
      } finally {
        await c.end();
      }
    },
    90_000,
  );
});
