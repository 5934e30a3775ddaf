import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A directory of this run's own for what a worker keeps for its whole life (test/store/stores.ts
 * tempDirOfProcess: the SQLite store template, the web fixture's templates), removed after the
 * last file. vitest ends its workers with SIGTERM, so a worker's own `exit` hook never ran and
 * every run left its templates in the system's temporary directory. NOR_TEST_RUN_TMP names it
 * to the workers (they start after this, with the environment as it is then). Directories of
 * earlier runs whose vitest is gone (killed before its teardown) are removed here.
 */
const PREFIX = "nor-test-run-";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export default function setup(): () => void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (Number.isInteger(pid) && !alive(pid))
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  process.env["NOR_TEST_RUN_TMP"] = dir;
  return () => {
    delete process.env["NOR_TEST_RUN_TMP"];
    rmSync(dir, { recursive: true, force: true });
  };
}
