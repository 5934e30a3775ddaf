import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identityOf } from "../../src/night/night-lock.js";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * A data directory copied (`cp -a`) while a night runs there carries the night's mark, naming a
 * live process that opened the original. No check made from here tells a copy from another
 * view of the same directory (an overlay's upper and merged views differ in path, device and
 * more), so the mark is honoured on the copy too (politeness never fails open): `nor catalog
 * import` and `nor night` there are refused, and the refusal says which directory the night's
 * process opened and why. The original's night is a live process of this host whose mark is
 * written as `nor night` writes it.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-runners-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a data directory copied while a night runs there", () => {
  it("P9, P11: the original's night holds the copy too, and the refusal says the night's process opened the original", async () => {
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
          dir: realpathSync(original),
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

      // The copy: held all the same, and told why.
      const hint = `that process opened it as ${realpathSync(original)}: if ${copy} is a copy of that directory made while its night ran, the night's mark came with the copy`;
      const imported = await runMain([
        "catalog",
        "import",
        other,
        "--data",
        copy,
        "--allow-retire",
      ]);
      expect(imported.code, imported.stderr).toBe(2);
      expect(imported.stderr).toContain(`night 2020-01-01 is being run on ${copy}`);
      expect(imported.stderr).toContain(hint);
      const ran = await runMain(["night", "--catalog", first, "--data", copy, "--deadline", "1m"]);
      expect(ran.code, ran.stderr).toBe(1);
      expect(ran.stderr).toContain(hint);
      // The same night, joined from the copy: refused too, a copy's journal not being that
      // night's (its requests would not wait on that process's).
      const join_ = await runMain([
        "night",
        "--catalog",
        first,
        "--data",
        copy,
        "--night",
        "2020-01-01",
        "--deadline",
        "1m",
      ]);
      expect(join_.code, join_.stderr).toBe(1);
      expect(join_.stderr).toContain(`not joining it from ${copy}`);
      expect(join_.stderr).toContain(hint);
      // On the original itself nothing is said of another directory.
      expect(refused.stderr).not.toContain("that process opened it as");
    } finally {
      night.kill("SIGKILL");
    }
  }, 60_000);
});
