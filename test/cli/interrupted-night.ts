import { expect } from "vitest";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * A store at `data` with `catalog` imported and one night begun and not finished, as an
 * interruption (a stop, a crash) leaves it.
 */
export async function interruptedNight(
  catalog: string,
  data: string,
  row: { night: string; startedAt: string; deadlineAt: string },
): Promise<void> {
  const imported = await nor("catalog", "import", catalog, "--data", data);
  expect(imported.code, imported.stderr).toBe(0);
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    await store.db
      .insertInto("nights")
      .values({
        night: row.night,
        started_at: row.startedAt,
        deadline_at: row.deadlineAt,
        finished_at: null,
        runs: 1,
      })
      .execute();
  } finally {
    await store.close();
  }
}
