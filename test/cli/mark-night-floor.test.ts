import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * `nor mark --night` names the night the recheck calendar counts from (P25). A night from
 * before the store began (before it was made, and before the first night it ran) is one
 * nothing can have happened on here: a mistyped date, refused (exit 2) with both nights named.
 * Dates are fixed: the store's making is dated by hand (the migrator's table records it), and
 * no assertion depends on today's date.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store whose catalog holds one feed, made (by its record) at `madeAt`, with `nights` run. */
async function storeWith(madeAt: string, nights: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "nor-mark-floor-"));
  dirs.push(dir);
  const catalog = writeVillageCatalog(join(dir, "c.yaml"), "Floor", {
    "floor-feed": 'records: agendas, access: feed, url: "https://floor.example.gov/agendas.rss"',
  });
  const data = join(dir, "data");
  const imported = await nor("catalog", "import", catalog, "--data", data);
  expect(imported.code, imported.stderr).toBe(0);
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    await madeOn(store.db, madeAt);
    for (const night of nights)
      await store.db
        .insertInto("nights")
        .values({
          night,
          started_at: `${night}T06:00:00.000Z`,
          deadline_at: `${night}T12:00:00.000Z`,
          finished_at: `${night}T07:00:00.000Z`,
          runs: 1,
          user_agent: null,
        })
        .execute();
  } finally {
    await store.close();
  }
  return data;
}

/** What the migrator recorded when it made the store, set to `at` (every migration at once). */
async function madeOn(db: Db, at: string): Promise<void> {
  await sql`update kysely_migration set "timestamp" = ${at}`.execute(db);
}

const mark = (data: string, ...more: string[]) =>
  nor("mark", "floor-feed", "--not-read", "--reason", "owner asked", "--data", data, ...more);

async function marksIn(data: string): Promise<string[]> {
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    return (await store.db.selectFrom("marks").select("night").execute()).map((m) => m.night);
  } finally {
    await store.close();
  }
}

describe("nor mark --night before the store began", () => {
  it("P25: a --night before the store's first night (run before the store's recorded making) is refused, exit 2, naming both nights; nothing is marked", async () => {
    // A night run by date (`nor night --night 2026-11-05`) on a store made on Nov 20.
    const data = await storeWith("2026-11-20T15:00:00.000Z", ["2026-11-05", "2026-11-06"]);
    const r = await mark(data, "--night", "2026-11-04");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "--night: 2026-11-04 is before the earliest night this store knows, 2026-11-05 (its first night); nothing could have happened on it here",
    );
    expect(await marksIn(data)).toEqual([]);

    const ok = await mark(data, "--night", "2026-11-05");
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(await marksIn(data)).toEqual(["2026-11-05"]);
  });

  it("P25: a --night before the day the store was made, when it ran no night before that, is refused naming the day it was made (New York date)", async () => {
    // Made at 01:30 UTC on Nov 21: still Nov 20 in New York. Its first night is Nov 22.
    const data = await storeWith("2026-11-21T01:30:00.000Z", ["2026-11-22"]);
    const r = await mark(data, "--night", "2026-11-19");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--night: 2026-11-19 is before the earliest night this store knows, 2026-11-20 (the New York date the store was made, before any night it ran); nothing could have happened on it here",
    );
    expect(await marksIn(data)).toEqual([]);

    // The day it was made, before its first night: the store knew the source then.
    const ok = await mark(data, "--night", "2026-11-20");
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
  });

  it("P25: a store with no night yet refuses a --night before it was made, and still marks on tonight (no --night) as before", async () => {
    const data = await storeWith("2026-11-20T15:00:00.000Z", []);
    const r = await mark(data, "--night", "2026-10-31");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--night: 2026-10-31 is before the earliest night this store knows, 2026-11-20 (the New York date the store was made, before any night it ran)",
    );
    expect(await marksIn(data)).toEqual([]);

    const tonight = await mark(data);
    expect(tonight.stderr).toBe("");
    expect(tonight.code).toBe(0);
    expect(await marksIn(data)).toHaveLength(1);
  });
});
