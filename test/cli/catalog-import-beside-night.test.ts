import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { exitCodeOf } from "../../src/cli/main.js";
import { NorError } from "../../src/errors.js";
import { randomIds } from "../../src/ids.js";
import { registerNightRunner } from "../../src/night/night-runners.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor catalog import` and `nor start` beside a `nor night` that another live process runs on
 * the same data directory: an import that would change the sources that night runs (retire one
 * under it, add one it will not check, change a way in) is refused (exit 2), naming the night,
 * the data directory and what differs, and nothing is written; one that changes no source (a
 * government's name, the same files again) goes ahead. The check is the one `nor night` makes
 * when it joins a running night (src/night/catalog-beside-night.ts). The running night is a
 * process of its own, held open by a loopback server that never answers its feed.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-import-beside-night-"));
const pgStores = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await pgStores?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** The catalog of writeVillageCatalog ("Join") with another name for its government. */
function renamedCatalog(file: string, sources: Record<string, string>): string {
  writeFileSync(
    file,
    [
      "governments:",
      "  - { id: village-of-join, name: Village of Join-on-the-Lake, kind: village, county: Franklin }",
      "sources:",
      ...Object.entries(sources).map(
        ([s, rest]) => `  - { id: ${s}, government: village-of-join, ${rest} }`,
      ),
      "",
    ].join("\n"),
  );
  return file;
}

describe("a catalog import beside a running night", () => {
  it("P11, P13: `nor catalog import` and `nor start` that would change the running night's sources are refused (exit 2) naming the night, the data directory and what differs, nothing written; a government's name or the same files go ahead; once the night is gone the import goes ahead", async () => {
    buildCli();
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      if (req.url === "/robots.txt") res.writeHead(404).end();
      else held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.9", r));
    const origin = `http://127.0.0.9:${(server.address() as AddressInfo).port}`;
    try {
      const sources = {
        "join-a": `records: agendas, access: feed, url: "${origin}/a.rss"`,
        "join-b": `records: minutes, access: feed, url: "${origin}/b.rss"`,
      };
      const first = writeVillageCatalog(join(dir, "first.yaml"), "Join", sources);
      // join-b retired, join-c added: what the tester saw imported under a running night.
      const other = writeVillageCatalog(join(dir, "other.yaml"), "Join", {
        "join-a": sources["join-a"],
        "join-c": `records: bids, access: feed, url: "${origin}/c.rss"`,
      });
      const renamed = renamedCatalog(join(dir, "renamed.yaml"), sources);
      const data = join(dir, "data");
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const running = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "nor.js"),
          ...["night", "--catalog", first, "--data", data, "--night", "2026-11-05"],
          ...["--allow-private-addresses", "--gap-ms", "0"],
        ],
        { cwd: ROOT, env, stdio: ["ignore", "ignore", "ignore"] },
      );
      const ended = new Promise<void>((r) => running.once("exit", () => r()));
      const readStore = () => {
        const db = new Database(join(data, "nor.db"), { readonly: true });
        try {
          return {
            sources: db.prepare("select id, retired_at from sources order by id").all(),
            government: (
              db.prepare("select name from governments where id = 'village-of-join'").get() as {
                name: string;
              }
            ).name,
            night: db.prepare("select finished_at from nights where night = '2026-11-05'").get(),
          };
        } finally {
          db.close();
        }
      };
      const inUse = [
        { id: "join-a", retired_at: null },
        { id: "join-b", retired_at: null },
      ];
      try {
        // Bounded: until the running night's first feed is on the wire, 60 s at most.
        for (let i = 0; i < 600 && held.length === 0; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(held.length).toBe(1);

        const refused = await runMain([
          "catalog",
          "import",
          other,
          "--data",
          data,
          "--allow-retire",
        ]);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stdout).toBe("");
        expect(refused.stderr).toBe(
          `nor: night 2026-11-05 is being run on ${data} by another process, with other sources than ${other} lists (join-c is not among the sources in use; join-b is in use but not listed): not importing a different catalog beside a running night (its sources would change under it); import these once the night is over\n`,
        );
        expect(readStore()).toEqual({
          sources: inUse,
          government: "Village of Join",
          night: { finished_at: null },
        });

        // `nor start` imports too: the same refusal, before it serves or schedules anything.
        const stop = new AbortController();
        let served = false;
        const started = await runStart(
          {
            catalog: [other],
            data,
            host: "127.0.0.9",
            port: "0",
            at: "01:00",
            zone: "America/New_York",
            allowRetire: true,
          },
          {
            say: () => {},
            signal: stop.signal,
            // Nothing is run: before the fix the import went ahead and it got this far.
            runNight: async () => 0,
            onListening: () => {
              served = true;
              stop.abort();
            },
          },
        ).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(served).toBe(false);
        expect(started).toBeInstanceOf(NorError);
        expect(exitCodeOf(started as NorError)).toBe(2);
        expect((started as NorError).message).toBe(
          `night 2026-11-05 is being run on ${data} by another process, with other sources than ${other} lists (join-c is not among the sources in use; join-b is in use but not listed): not importing a different catalog beside a running night (its sources would change under it); run \`nor start\` with the catalog files that night runs (--catalog A B …), or once the night is over`,
        );
        expect(readStore().sources).toEqual(inUse);

        // The same sources, each as it was: a government's name may change under the night.
        const rename = await runMain(["catalog", "import", renamed, "--data", data]);
        expect(rename.code, rename.stderr).toBe(0);
        expect(rename.stderr).toBe("");
        expect(readStore()).toMatchObject({
          sources: inUse,
          government: "Village of Join-on-the-Lake",
        });
        // And the night's own files again (its stamp no longer the store's: compared).
        const same = await runMain(["catalog", "import", first, "--data", data]);
        expect(same.code, same.stderr).toBe(0);
        expect(readStore()).toMatchObject({ sources: inUse, government: "Village of Join" });
      } finally {
        running.kill("SIGTERM");
        await ended;
      }
      // The night gone (its mark with it): the import the person meant goes ahead.
      const after = await runMain(["catalog", "import", other, "--data", data, "--allow-retire"]);
      expect(after.code, after.stderr).toBe(0);
      expect(readStore().sources).toEqual([
        { id: "join-a", retired_at: null },
        { id: "join-b", retired_at: expect.any(String) },
        { id: "join-c", retired_at: null },
      ]);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("a catalog import beside a running night, on PostgreSQL", () => {
  it.skipIf(!pgStores)(
    "P11: the night's mark in the data directory and the advisory lock: an import that changes its sources is refused (exit 2), one that changes none goes ahead, and once the mark is gone the import goes ahead",
    async () => {
      const loc = await (pgStores as NonNullable<typeof pgStores>).fresh();
      if (loc.kind !== "postgres") throw new Error("a PostgreSQL store was asked for");
      const env = { NOR_DATABASE_URL: loc.url };
      const data = mkdtempSync(join(dir, "pg-data-"));
      const sources = {
        "pg-a": `records: agendas, access: feed, url: "http://127.0.0.9:9/a.rss"`,
        "pg-b": `records: minutes, access: feed, url: "http://127.0.0.9:9/b.rss"`,
      };
      const first = writeVillageCatalog(join(dir, "pg-first.yaml"), "Join", sources);
      const other = writeVillageCatalog(join(dir, "pg-other.yaml"), "Join", {
        "pg-a": sources["pg-a"],
      });
      const renamed = renamedCatalog(join(dir, "pg-renamed.yaml"), sources);
      const imported = await runMain(["catalog", "import", first, "--data", data], { env });
      expect(imported.code, imported.stderr).toBe(0);
      // This process marks itself as running the night there, as `nor night` does.
      const now = Date.now();
      const runner = registerNightRunner(data, "2026-11-05", now, now + 3_600_000, randomIds);
      try {
        const refused = await runMain(
          ["catalog", "import", other, "--data", data, "--allow-retire"],
          { env },
        );
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(
          `night 2026-11-05 is being run on ${data} by another process, with other sources than ${other} lists (pg-b is in use but not listed)`,
        );
        const rename = await runMain(["catalog", "import", renamed, "--data", data], { env });
        expect(rename.code, rename.stderr).toBe(0);
        expect(rename.stdout).toContain("changed");
      } finally {
        runner.release();
      }
      const after = await runMain(["catalog", "import", other, "--data", data, "--allow-retire"], {
        env,
      });
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toContain("1 retired");
    },
  );
});

describe("a night run from another data directory on the same PostgreSQL store", () => {
  it.skipIf(!pgStores)(
    "P11, P13: known from the store's lane leases: a catalog import that would change its sources is refused (exit 2), another night is not started beside it nor the running one closed as interrupted (exit 1); once its leases have run out, both go ahead",
    async () => {
      const loc = await (pgStores as NonNullable<typeof pgStores>).fresh();
      if (loc.kind !== "postgres") throw new Error("a PostgreSQL store was asked for");
      const env = { NOR_DATABASE_URL: loc.url };
      const here = mkdtempSync(join(dir, "pg-here-"));
      const sources = {
        "pg-a": `records: agendas, access: feed, url: "http://127.0.0.9:9/a.rss"`,
        "pg-b": `records: minutes, access: feed, url: "http://127.0.0.9:9/b.rss"`,
      };
      const first = writeVillageCatalog(join(dir, "pg-x-first.yaml"), "Join", sources);
      const other = writeVillageCatalog(join(dir, "pg-x-other.yaml"), "Join", {
        "pg-a": sources["pg-a"],
      });
      const imported = await runMain(["catalog", "import", first, "--data", here], { env });
      expect(imported.code, imported.stderr).toBe(0);
      // Another machine runs night 2026-11-05 (a past date, asked for by name): its row open,
      // one of its lanes leased a moment ago. Nothing of it is in this data directory.
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: loc.url });
      await client.connect();
      try {
        const now = Date.now();
        const iso = (ms: number) => new Date(ms).toISOString();
        await client.query(
          "insert into nights (night, started_at, deadline_at, finished_at, runs) values ($1, $2, $3, null, 1)",
          ["2026-11-05", iso(now - 60_000), iso(now + 3_600_000)],
        );
        await client.query(
          "insert into night_lanes (night, site, holder, lease_until, done_at) values ($1, $2, $3, $4, null)",
          ["2026-11-05", "127.0.0.9", "elsewhere:4242:abcd", iso(now + 60_000)],
        );
        const refused = await runMain(
          ["catalog", "import", other, "--data", here, "--allow-retire"],
          { env },
        );
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(
          `night 2026-11-05 is being run on ${here} by another process, with other sources than ${other} lists (pg-b is in use but not listed)`,
        );
        const beside = await runMain(
          ["night", "--catalog", first, "--data", here, "--allow-private-addresses"],
          { env },
        );
        expect(beside.code, beside.stderr).toBe(1);
        expect(beside.stderr).toContain(
          "night 2026-11-05 is being run on this store by another process (from another data directory or machine: it is marked under way in the store, or its lanes are leased); not starting night",
        );
        const open = await client.query(
          "select finished_at from nights where night = '2026-11-05'",
        );
        expect(open.rows[0]?.finished_at).toBeNull();
        // Its leases ran out (the machine is gone): the import goes ahead. (A lease of this
        // host whose process is gone is over at once: not waited for.)
        await client.query("update night_lanes set holder = $1", [`${hostname()}:2147483646:gone`]);
        const after = await runMain(
          ["catalog", "import", other, "--data", here, "--allow-retire"],
          {
            env,
          },
        );
        expect(after.code, after.stderr).toBe(0);
        expect(after.stdout).toContain("1 retired");
      } finally {
        await client.end();
      }
    },
  );
});
