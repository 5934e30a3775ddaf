import { spawn } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomIds } from "../../src/ids.js";
import { identityOf } from "../../src/night/night-lock.js";
import {
  dataPlaceOf,
  nightsRunning,
  RUNNERS_DIR,
  registerNightRunner,
} from "../../src/night/night-runners.js";
import { openStore } from "../../src/store/db.js";
import { holderDead } from "../../src/store/holder.js";

/**
 * A data directory copied (`cp -a`) while a night runs there carries that night's mark (and, in
 * its copy of the store, that night's leases), naming a live process that works on the original.
 * On the copy the mark is no night, and the leases hold only until they run out; on the original
 * the mark is the night it always was, however the directory is reached (src/night/night-runners.ts).
 */
const root = mkdtempSync(join(tmpdir(), "nor-runners-place-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A data directory `name` holding a new store, as a night's command leaves it. */
async function dataDir(name: string): Promise<string> {
  const dir = join(root, name);
  await (await openStore({ kind: "sqlite", dir })).close();
  return dir;
}

/** A live process of this host, standing for a night that runs on another data directory. */
function otherProcess() {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
    stdio: "ignore",
  });
  return { pid: child.pid as number, stop: () => child.kill("SIGKILL") };
}

/** Writes the mark `pid` writes when it runs `night` on `data`, as registerNightRunner does. */
function markBy(data: string, pid: number, night: string, place = dataPlaceOf(data)) {
  mkdirSync(join(data, RUNNERS_DIR), { recursive: true });
  const holder = `${hostname()}:${pid}:0a1b2c3d`;
  writeFileSync(
    join(data, RUNNERS_DIR, `${holder.replace(/[^\w.-]/g, "_")}.json`),
    `${JSON.stringify({
      night,
      holder,
      until: Date.now() + 3_600_000,
      process: identityOf(pid),
      ...(place !== undefined ? { data: place } : {}),
    })}\n`,
  );
  return holder;
}

describe("night-runners: a mark says which data directory its night runs on", () => {
  it("P11: a mark copied with its data directory is no night on the copy; on the original it is, through a symbolic link or another spelling of its path, and for a directory whose store is the same file", async () => {
    const a = await dataDir("a");
    const now = Date.now();
    const runner = registerNightRunner(a, "2026-11-20", now, now + 3_600_000, randomIds);
    try {
      const [mark] = readdirSync(join(a, RUNNERS_DIR));
      expect(JSON.parse(readFileSync(join(a, RUNNERS_DIR, mark!), "utf8")).data).toEqual(
        dataPlaceOf(a),
      );
      const running = nightsRunning(a, now);
      expect(running.map((r) => r.night)).toEqual(["2026-11-20"]);

      // cp -a while the night runs: the copy is another directory with another store.
      const copy = join(root, "copy");
      cpSync(a, copy, { recursive: true, preserveTimestamps: true });
      expect(readdirSync(join(copy, RUNNERS_DIR))).toEqual([mark]);
      expect(nightsRunning(copy, now)).toEqual([]);
      const other = registerNightRunner(copy, "2026-11-21", now, now + 3_600_000, randomIds);
      try {
        expect(other.joined).toBe(false);
        // The original's mark is cleared from the copy; the copy's own night is marked there.
        expect(readdirSync(join(copy, RUNNERS_DIR))).not.toContain(mark);
        expect(nightsRunning(copy, now).map((r) => r.night)).toEqual(["2026-11-21"]);
      } finally {
        other.release();
      }

      // The original, however reached: its night, and another night is refused beside it.
      const link = join(root, "link-to-a");
      symlinkSync(a, link);
      for (const spelt of [a, link, join(a, "..", basename(a)), `${a}/./`]) {
        expect(nightsRunning(spelt, now), spelt).toEqual(running);
        expect(
          () => registerNightRunner(spelt, "2026-11-21", now, now + 3_600_000, randomIds),
          spelt,
        ).toThrow(/night 2026-11-20 is being run on .* by another process/);
      }

      // Another directory whose nor.db is a link to the original's: the same store, so the
      // same night (cp -a copies the link as a link).
      const shared = join(root, "shared");
      mkdirSync(shared);
      symlinkSync(join(a, "nor.db"), join(shared, "nor.db"));
      cpSync(join(a, RUNNERS_DIR), join(shared, RUNNERS_DIR), { recursive: true });
      expect(nightsRunning(shared, now)).toEqual(running);

      // A mark written before marks said their place: honoured wherever it is found.
      const old = join(root, "old");
      cpSync(a, old, { recursive: true });
      const path = join(old, RUNNERS_DIR, mark!);
      const { data: _place, ...before } = JSON.parse(readFileSync(path, "utf8"));
      writeFileSync(path, `${JSON.stringify(before)}\n`);
      expect(nightsRunning(old, now)).toEqual(running);
    } finally {
      runner.release();
    }
  });

  it("P9, P10: the leases a copied store holds for a live process working on the original hold until they run out, not for as long as it lives", async () => {
    const other = otherProcess();
    try {
      const a = await dataDir("leases");
      const holder = markBy(a, other.pid, "2026-11-20");
      const copy = join(root, "leases-copy");
      cpSync(a, copy, { recursive: true });
      const now = Date.now();
      // A lease of that process's, run out a moment ago: this host's live process holds it
      // still (a slow body is never overlapped, up to STALE_MS past it).
      const ranOut = { holder, until: now - 1_000 };
      const running = { holder, until: now + 60_000 };
      expect(holderDead(ranOut, now)).toBe(false);
      // On the original its night runs, and its leases are its own.
      expect(nightsRunning(a, now).map((r) => r.night)).toEqual(["2026-11-20"]);
      expect(holderDead(ranOut, now)).toBe(false);
      // On the copy: no night, and the copied leases hold only until they run out.
      expect(nightsRunning(copy, now)).toEqual([]);
      expect(holderDead(ranOut, now)).toBe(true);
      expect(holderDead(running, now)).toBe(false);
    } finally {
      other.stop();
    }
  });

  it("P11: a mark of another process on the original is still a night there, and on a copy it is none", async () => {
    const other = otherProcess();
    try {
      const a = await dataDir("other-original");
      markBy(a, other.pid, "2026-11-20");
      const copy = join(root, "other-copy");
      cpSync(a, copy, { recursive: true });
      const now = Date.now();
      expect(nightsRunning(a, now).map((r) => r.night)).toEqual(["2026-11-20"]);
      expect(() => registerNightRunner(a, "2026-11-21", now, now + 3_600_000, randomIds)).toThrow(
        /night 2026-11-20 is being run/,
      );
      expect(nightsRunning(copy, now)).toEqual([]);
    } finally {
      other.stop();
    }
  });
});
