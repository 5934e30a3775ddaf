import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nightsLiveInStore } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { STALE_MS } from "../../src/store/holder.js";
import { HOLDER_ALIVE_CLASS, holderKey } from "../../src/store/holder-liveness.js";
import { markNightRun, renewNightRun } from "../../src/store/night-runs.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { ROOT, runNorAsync } from "./run-nor.js";

/**
 * P13, P26 on PostgreSQL, machines sharing one store with a data directory each: a night under
 * way is in the store from its opening to its end (store/night-runs.ts, `night_runs`), not only
 * while it leases a lane. Held at its canary (no lane claimed yet), it keeps another night from
 * starting beside it; killed, it holds nothing back (its process gone on this host: at once;
 * another machine's once its lease has run out and its liveness lock is gone).
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await factory?.cleanup();
});

const FEED = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x/</link><description>d</description><item><title>a</title><link>http://x/a</link><guid>a</guid></item></channel></rss>`;

describe.skipIf(factory === undefined)(
  "a night under way, in the shared store (PostgreSQL)",
  () => {
    it("P13, P26: while a night asks its canary, another night is not started beside it from another data directory (exit 1); killed -9, it holds back nothing, and a night that ends leaves no row", async () => {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      if (loc.kind !== "postgres") throw new Error("postgres expected");
      const env = { NOR_DATABASE_URL: loc.url };
      const d = mkdtempSync(join(tmpdir(), "nor-night-runs-"));
      dirs.push(d);
      let canaryAsked: () => void = () => {};
      const asked = new Promise<void>((r) => {
        canaryAsked = r;
      });
      const server: Server = createServer((req, res: ServerResponse) => {
        // The canary never answers in the first night (it is killed while it waits).
        if (req.url === "/canary") return void canaryAsked();
        if (req.url === "/robots.txt") return void res.writeHead(404).end();
        res.writeHead(200, { "content-type": "application/rss+xml" }).end(FEED);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const catalog = writeVillageCatalog(join(d, "c.yaml"), "Test", {
          "test-agendas": `records: agendas, access: feed, url: "${origin}/agendas.rss"`,
        });
        const a = join(d, "machine-a");
        const b = join(d, "machine-b");
        const base = { ...process.env };
        delete base["NOR_DATABASE_URL"];
        const night = spawn(
          process.execPath,
          [
            ...[join(ROOT, "bin", "nor.js"), "night", "--catalog", catalog, "--data", a],
            ...["--night", "2026-11-05", "--deadline", "10m", "--allow-private-addresses"],
            ...["--gap-ms", "50", "--canary", `${origin}/canary`],
          ],
          { cwd: ROOT, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] },
        );
        let err = "";
        night.stderr.on("data", (c: Buffer) => {
          err += c.toString();
        });
        const exited = new Promise<string | null>((r) => night.on("exit", (_c, s) => r(s)));
        const timer = setTimeout(() => night.kill("SIGKILL"), 60_000);
        try {
          await Promise.race([
            asked,
            exited.then(() => {
              throw new Error(`the night ended before asking its canary: ${err}`);
            }),
          ]);
          const beside = await runNorAsync(
            [
              ...["night", "--catalog", catalog, "--data", b, "--night", "2026-11-06"],
              "--allow-private-addresses",
            ],
            { env, timeoutMs: 30_000 },
          );
          expect(beside.code, beside.stderr).toBe(1);
          expect(beside.stderr).toContain(
            "night 2026-11-05 is being run on this store by another process (from another data directory or machine: it is marked under way in the store, or its lanes are leased); not starting night 2026-11-06",
          );
        } finally {
          night.kill("SIGKILL");
          clearTimeout(timer);
        }
        expect(await exited).toBe("SIGKILL");
        // Killed on this host: its row's process is gone, so nothing is held back.
        const store = await openStore(loc);
        try {
          const left = await store.db.selectFrom("night_runs").selectAll().execute();
          expect(left.map((r) => r.night)).toEqual(["2026-11-05"]);
          expect(await nightsLiveInStore(store.db, Date.now())).toEqual([]);
        } finally {
          await store.close();
        }
        // The night resumed from machine B runs and ends: it leaves no row of its own (the killed
        // one's is left, dead, as its process left it).
        const resumed = await runNorAsync(
          [
            ...["night", "--catalog", catalog, "--data", b, "--night", "2026-11-05"],
            "--allow-private-addresses",
          ],
          { env, timeoutMs: 60_000 },
        );
        expect(resumed.code, resumed.stderr).toBe(0);
        const after = await openStore(loc);
        try {
          const rows = await after.db.selectFrom("night_runs").select("holder").execute();
          expect(rows).toHaveLength(1);
          expect(await nightsLiveInStore(after.db, Date.now())).toEqual([]);
        } finally {
          await after.close();
        }
      } finally {
        await new Promise<void>((r) => server.close(() => r()));
      }
    }, 120_000);

    it("P13, P26: another machine's night row holds while its lease lasts, or past it while its liveness lock is held; once both are gone it holds nothing back; stale rows are cleared, a late heartbeat writes its row again", async () => {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      if (loc.kind !== "postgres") throw new Error("postgres expected");
      const store = await openStore(loc);
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: loc.url });
      await client.connect();
      try {
        const now = Date.now();
        const iso = (ms: number) => new Date(ms).toISOString();
        const holder = "elsewhere:4242:abcd";
        await client.query(
          "insert into night_runs (holder, night, started_at, lease_until) values ($1, $2, $3, $4)",
          [holder, "2026-11-05", iso(now - 60_000), iso(now + 30_000)],
        );
        expect(await nightsLiveInStore(store.db, now)).toEqual(["2026-11-05"]);
        // Its lease ran out (a heartbeat late, the machine frozen): it lives while its liveness
        // lock is held.
        await client.query("update night_runs set lease_until = $1", [iso(now - 1_000)]);
        await client.query("select pg_advisory_lock_shared($1::int4, $2::int4)", [
          HOLDER_ALIVE_CLASS,
          holderKey(holder),
        ]);
        expect(await nightsLiveInStore(store.db, now)).toEqual(["2026-11-05"]);
        await client.query("select pg_advisory_unlock_shared($1::int4, $2::int4)", [
          HOLDER_ALIVE_CLASS,
          holderKey(holder),
        ]);
        expect(await nightsLiveInStore(store.db, now)).toEqual([]);
        // This host's row whose process is gone: dead at once, whatever its lease.
        await client.query("update night_runs set holder = $1, lease_until = $2", [
          `${hostname()}:2147483646:gone`,
          iso(now + 30_000),
        ]);
        expect(await nightsLiveInStore(store.db, now)).toEqual([]);
        // A row judged stale is deleted by the next night's mark; a heartbeat of a process
        // whose row went (frozen that long) writes it again.
        await client.query("update night_runs set lease_until = $1", [iso(now - STALE_MS - 1)]);
        await markNightRun(store.db, "elsewhere:1:new", "2026-11-06", now);
        const held = await client.query("select holder from night_runs order by holder");
        expect(held.rows.map((r) => r.holder)).toEqual(["elsewhere:1:new"]);
        await client.query("delete from night_runs");
        await renewNightRun(store.db, "elsewhere:1:new", "2026-11-06", now);
        expect(await nightsLiveInStore(store.db, now)).toEqual(["2026-11-06"]);
      } finally {
        await client.end();
        await store.close();
      }
    });
  },
);
