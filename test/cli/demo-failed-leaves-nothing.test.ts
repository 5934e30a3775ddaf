import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, norUnderFileSizeLimit } from "./run-nor.js";

/** The demo under `ulimit -f 40`: room for its catalog (about 3 KB), far too little for its store. */
const demoUnderFileSizeLimit = (data: string) =>
  norUnderFileSizeLimit(
    40,
    ["demo", "--headless", "--port", "0", "--gap-ms", "0", "--data", data],
    60_000,
  );

/**
 * An outside tester's finding: a `nor demo --data DIR` that failed once it had claimed DIR (its
 * store could not be written: a full disk, a file-size limit) left `demo-catalog.yaml` and a
 * store cut short behind, so the same --data was then refused as not empty. A failed demo takes
 * away what it made there, and the directories it made, and nothing else. A process of its own:
 * the file-size limit (`ulimit -f`) is the process's.
 */

describe("a nor demo that fails once it has claimed its --data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-demo-failed-"));
  beforeAll(() => buildCli());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves nothing it made in a new --data: no catalog, no store, not even the directories it made", async () => {
    const top = join(dir, "new");
    mkdirSync(top);
    const data = join(top, "a", "b");
    const r = await demoUnderFileSizeLimit(data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nor: ${join(data, "nor.db")} could not be written`);
    expect(readdirSync(top)).toEqual([]);
  }, 90_000);

  it("leaves an empty --data that was there as it was: there, and empty", async () => {
    const data = join(dir, "empty");
    mkdirSync(data);
    const r = await demoUnderFileSizeLimit(data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nor: ${join(data, "nor.db")} could not be written`);
    expect(readdirSync(data)).toEqual([]);
  }, 90_000);
});
