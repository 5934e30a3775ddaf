import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { identityOf } from "../../src/night/night-lock.js";
import { dataPlaceOf, RUNNERS_DIR } from "../../src/night/night-runners.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * A data directory copied (`cp -a`) while a night runs there: the copy carries the night's mark,
 * naming a live process that works on the original. `nor catalog import` and `nor night` on the
 * copy are not held by it (it runs no night there); on the original they are, as before. The
 * original's night is a live process of this host whose mark is written as `nor night` writes
 * it (its own process would have to be built and held open for the same mark).
 */
const dir = mkdtempSync(join(tmpdir(), "nor-runners-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a data directory copied while a night runs there", () => {
  it("P11: `nor catalog import` and `nor night` on the copy are not held by the original's night; on the original they still are", async () => {
    const night = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
      stdio: "ignore",
    });
    try {
      const pid = night.pid as number;
      // Nothing is asked: 127.0.0.1 without --allow-private-addresses is never sent to (P3).
      const first = writeVillageCatalog(join(dir, "first.yaml"), "Copy", {
        "copy-a": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
      });
      const other = writeVillageCatalog(join(dir, "other.yaml"), "Copy", {
        "copy-b": 'records: bids, access: feed, url: "http://127.0.0.1:9/b.rss"',
      });
      const original = join(dir, "original");
      expect((await runMain(["catalog", "import", first, "--data", original])).code).toBe(0);
      // The original's night, as its process marks it (night-runners.ts).
      mkdirSync(join(original, RUNNERS_DIR));
      const holder = `${hostname()}:${pid}:0a1b2c3d`;
      writeFileSync(
        join(original, RUNNERS_DIR, `${holder.replace(/[^\w.-]/g, "_")}.json`),
        `${JSON.stringify({
          night: "2020-01-01",
          holder,
          until: Date.now() + 3_600_000,
          process: identityOf(pid),
          data: dataPlaceOf(original),
        })}\n`,
      );
      const copy = join(dir, "copy");
      cpSync(original, copy, { recursive: true, preserveTimestamps: true });

      // The original: its night runs, so neither is let in beside it.
      const refused = await runMain([
        "catalog",
        "import",
        other,
        "--data",
        original,
        "--allow-retire",
      ]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(
        `night 2020-01-01 is being run on ${original} by another process`,
      );
      const beside = await runMain(["night", "--catalog", first, "--data", original]);
      expect(beside.code, beside.stderr).toBe(1);
      expect(beside.stderr).toContain(
        `night 2020-01-01 is being run on ${original} by another process`,
      );

      // The copy: no night runs there.
      const imported = await runMain([
        "catalog",
        "import",
        other,
        "--data",
        copy,
        "--allow-retire",
      ]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).not.toContain("is being run");
      const ran = await runMain(["night", "--catalog", other, "--data", copy, "--deadline", "1m"]);
      expect(ran.stderr).not.toContain("is being run");
      expect(ran.code, ran.stderr).toBe(0);
      const db = new Database(join(copy, "nor.db"), { readonly: true });
      try {
        expect(db.prepare("select source_id from night_sources").all()).toEqual([
          { source_id: "copy-b" },
        ]);
      } finally {
        db.close();
      }
    } finally {
      night.kill("SIGKILL");
    }
  }, 60_000);
});
