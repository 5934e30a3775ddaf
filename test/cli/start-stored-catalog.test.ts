import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { postgresFactory } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { sayings } from "./sayings.js";

/**
 * tester-ops O5, at `nor start`'s own start: a catalog file mistyped while it was stopped (a
 * reboot, a restart) no longer keeps the directory down. With a store that this build imported
 * a catalog into, the directory is served and each night runs with `--or-stored-catalog`
 * (test/cli/night-stored-catalog.test.ts); with no store, the files' problem stops it as
 * before (exit 2), with nothing made.
 */
const NY = "America/New_York";
const dir = mkdtempSync(join(tmpdir(), "nor-start-stored-"));
const pgBase = process.env["NOR_TEST_POSTGRES_URL"];
const pgf = pgBase ? postgresFactory(pgBase) : undefined;
afterAll(async () => {
  await pgf?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});
const quiet = () => ({
  clock: new ManualClock(),
  say: () => {},
  signal: new AbortController().signal,
});

const opts = (catalog: string, data: string) => ({
  catalog: [catalog],
  data,
  host: "127.0.0.1",
  port: "0",
  at: "01:00",
  zone: NY,
});

describe("nor start with catalog files it cannot use", () => {
  it("P13 (tester-ops O5): with a store this build imported, the directory is served, it says why, and the night runs with --or-stored-catalog", async () => {
    const catalog = writeVillageCatalog(join(dir, "catalog.yaml"), "Kept", {
      "kept-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/agendas.rss"',
    });
    const data = join(dir, "data");
    const imported = await runMain(["catalog", "import", catalog, "--data", data]);
    expect(imported.code, imported.stderr).toBe(0);
    writeFileSync(catalog, "governments: [\n");

    // Two seconds before 01:00 in New York.
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 5, 59, 58));
    const { lines, say, said } = sayings();
    const nights: string[][] = [];
    const stop = new AbortController();
    let url = "";
    const running = runStart(opts(catalog, data), {
      clock,
      say,
      signal: stop.signal,
      onListening: (u) => (url = u),
      runNight: async (args) => {
        nights.push(args);
        return 0;
      },
    });
    await said(/the next night runs at 2026-11-05 01:00/);
    expect(lines[0]).toContain(
      `the catalog files (${catalog}) could not be used: catalog has 1 problem: ${catalog}:`,
    );
    expect(lines[0]).toContain(
      "The directory is served from the store, and each night imports the files once they can be; until then it runs the sources the store last imported",
    );
    expect(lines.some((l) => /^catalog .*: \d+ governments/.test(l))).toBe(false);
    expect(await (await fetch(`${url}governments`)).text()).toContain("Village of Kept");
    await clock.advance(2_000);
    await said(/the night is done/);
    expect(nights).toHaveLength(1);
    expect(nights[0]).toContain("--or-stored-catalog");
    stop.abort();
    await running;
  }, 60_000);

  it("P3, P13 (tester-ops O5): with a store another build imported, the files' problem stops it (exit 2): this build has not checked those sources", async () => {
    const catalog = writeVillageCatalog(join(dir, "older.yaml"), "Older", {
      "older-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/agendas.rss"',
    });
    const data = join(dir, "older-data");
    expect((await runMain(["catalog", "import", catalog, "--data", data])).code).toBe(0);
    const db = new Database(join(data, "nor.db"));
    try {
      db.prepare("update catalog_stamp set importer = 'an older build'").run();
    } finally {
      db.close();
    }
    writeFileSync(catalog, "governments: [\n");
    const before = readdirSync(data).sort();
    await expect(runStart(opts(catalog, data), quiet())).rejects.toThrow(/catalog has 1 problem/);
    // Looked at read-only: nothing made or changed beside it.
    expect(readdirSync(data).sort()).toEqual(before);
  });

  it("P13 (tester-ops O5, review-start 1): an import refused goes on only with sources in use the files list unchanged, and says only those run; with none it stops (exit 2)", async () => {
    const url = (n: string) => `"http://127.0.0.1:9/${n}.rss"`;
    const catalog = writeVillageCatalog(join(dir, "refused.yaml"), "Refused", {
      "refused-a": `records: agendas, access: feed, url: ${url("a")}`,
      "refused-b": `records: minutes, access: feed, url: ${url("b")}`,
    });
    const data = join(dir, "refused-data");
    expect((await runMain(["catalog", "import", catalog, "--data", data])).code).toBe(0);
    // Valid, but retiring refused-b (one of two: refused), refused-a listed unchanged.
    writeVillageCatalog(catalog, "Refused", {
      "refused-a": `records: agendas, access: feed, url: ${url("a")}`,
    });
    const lines: string[] = [];
    const stop = new AbortController();
    let up!: () => void;
    const served = new Promise<void>((r) => (up = r));
    const running = runStart(opts(catalog, data), {
      clock: new ManualClock(Date.UTC(2026, 10, 5, 12)),
      say: (l) => lines.push(l),
      signal: stop.signal,
      onListening: () => up(),
      runNight: async () => 0,
    });
    await served;
    stop.abort();
    await running;
    expect(lines[0]).toContain("this import would retire 1 of the 2 sources in use");
    expect(lines[0]).toContain(
      "until then it runs only the 1 source in use that the files list unchanged",
    );
    // None listed unchanged: as a night would, it stops.
    writeVillageCatalog(catalog, "Refused", {
      "refused-c": `records: bids, access: feed, url: ${url("c")}`,
    });
    await expect(runStart(opts(catalog, data), quiet())).rejects.toThrow(
      /this import would retire 2 of the 2 sources in use/,
    );
  }, 60_000);

  it.skipIf(!pgf)(
    "P13 (tester-ops O5, review-start 2): on PostgreSQL with no store yet, the files' problem stops it (exit 2) with nothing made, no table either",
    async () => {
      const loc = (await pgf?.fresh()) as { url: string };
      const catalog = join(dir, "pg-broken.yaml");
      writeFileSync(catalog, "governments: [\n");
      const data = join(dir, "pg-never");
      process.env["NOR_DATABASE_URL"] = loc.url;
      try {
        await expect(runStart(opts(catalog, data), quiet())).rejects.toThrow(
          /catalog has 1 problem/,
        );
      } finally {
        delete process.env["NOR_DATABASE_URL"];
      }
      const c = new pg.Client({ connectionString: loc.url });
      await c.connect();
      try {
        const t = await c.query<{ n: number }>(
          "select count(*)::int as n from information_schema.tables where table_schema = current_schema()",
        );
        expect({ dataDir: existsSync(data), tables: t.rows[0]?.n }).toEqual({
          dataDir: false,
          tables: 0,
        });
      } finally {
        await c.end();
      }
    },
  );

  it("P13 (tester-ops O5): with no store there, the files' problem stops it (exit 2) and nothing is made", async () => {
    const catalog = join(dir, "broken.yaml");
    writeFileSync(catalog, "governments: [\n");
    const data = join(dir, "never");
    await expect(
      runStart(opts(catalog, data), {
        clock: new ManualClock(),
        say: () => {},
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(/catalog has 1 problem/);
    expect(existsSync(data)).toBe(false);
  });
});
