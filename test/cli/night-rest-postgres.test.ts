import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { postgresFactory } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * P11 on PostgreSQL (review-s29c R3): the nights' starts are the database server's time, so the
 * 20 hours a past night waits after the last one began are measured by it too: a machine whose
 * clock runs ahead of the database's does not begin a past night seconds after the last one.
 */
const base = process.env["NOR_TEST_POSTGRES_URL"];
const factory = base ? postgresFactory(base) : undefined;
const dir = mkdtempSync(join(tmpdir(), "nor-night-rest-pg-"));

afterAll(async () => {
  await factory?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("the 20 hours on PostgreSQL", () => {
  it.skipIf(!factory)(
    "P11: measured by the database's clock: a machine 21 h ahead is refused a past night seconds after the last began",
    async () => {
      const loc = await factory?.fresh();
      const url = (loc as { url: string }).url;
      const tonight = nightOf(Date.now());
      const [a, b] = [addDays(tonight, -4), addDays(tonight, -3)];
      // An address the guard refuses without DNS (no --allow-private-addresses): nothing is
      // sent, and the rule is not lifted.
      const cat = writeVillageCatalog(join(dir, "c.yaml"), "Skew", {
        "skew-feed": 'records: bids, access: feed, url: "http://127.0.0.1:9/bids.rss"',
      });
      const night = (date: string) =>
        runMain(["night", "--catalog", cat, "--data", join(dir, "data"), "--night", date], {
          env: { NOR_DATABASE_URL: url },
        });
      expect((await night(a)).code).toBe(0);
      const real = Date.now.bind(Date);
      const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + 21 * 3_600_000);
      let skewed: Awaited<ReturnType<typeof night>>;
      try {
        skewed = await night(b);
      } finally {
        spy.mockRestore();
      }
      expect(skewed.code, skewed.stderr).toBe(2);
      expect(skewed.stderr).toContain(`night ${b} is past and was never run on this store`);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const rows = (await c.query("select night from nights order by night")).rows;
        expect(rows.map((r: { night: string }) => r.night)).toEqual([a]);
      } finally {
        await c.end();
      }
    },
    90_000,
  );
});
