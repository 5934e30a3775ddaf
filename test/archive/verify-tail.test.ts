/**
 * P8, docs/operations.md ("Backups"): a copy of the archive taken while a night writes may end
 * in a half-written record, which opening the archive skips (cuts off). `nor archive verify`,
 * recommended to check such a copy, says that tail plainly as a note and exits 0; what is
 * really wrong (a digest, bytes missing where the index names records) still fails it.
 */
import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

const T0 = Date.UTC(2026, 10, 5, 8);

describe("nor archive verify and a half-written tail record (P8)", () => {
  let t: TempStore;
  let file: string;
  let path: string;
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/a", "<p>a</p>", { at: T0 }));
    await a.write(exchange("http://127.0.0.2/b", `<p>${"b".repeat(2000)}</p>`, { at: T0 + 1 }));
    await a.close();
    file = listWarcFiles(t.archiveDir)[0]!;
    path = join(t.archiveDir, file);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: the first 300 bytes of the file appended (head -c 300 F >> F): a note, exit 0", async () => {
    const size = statSync(path).size;
    appendFileSync(path, readFileSync(path).subarray(0, 300));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    const out = r.stdout.toString();
    expect(r.code, out + r.stderr).toBe(0);
    expect(out).not.toContain("MISMATCH");
    expect(out).toContain(`NOTE ${file} offset ${size}: 300 bytes after the last whole record`);
    expect(out).toContain("0 problems");
  });

  it("P8: half of a record appended (a writer killed mid-write): a note, exit 0; the archive then opens and cuts it off", async () => {
    const size = statSync(path).size;
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/b"))[0]!;
    const half = Math.floor(c.length / 2);
    appendFileSync(path, readFileSync(path).subarray(c.offset, c.offset + half));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code, r.stdout.toString() + r.stderr).toBe(0);
    expect(r.stdout.toString()).toContain(
      `NOTE ${file} offset ${size}: ${half} bytes after the last whole record`,
    );
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.close();
    expect(a.recoveredBytes).toBe(half);
    const after = await verifyArchive(t.archiveDir, t.store.db);
    expect(after.problems).toEqual([]);
    expect(after.notes).toEqual([]);
  });

  it("P8: a whole record whose digest is wrong is still a mismatch (exit 1), tail or not", async () => {
    const bytes = readFileSync(path);
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/b"))[0]!;
    // The indexed record's bytes flipped in its middle: it no longer inflates or its digest fails.
    const bad = Buffer.from(bytes);
    const at = c.offset + Math.floor(c.length / 2);
    bad[at] = (bad[at] ?? 0) ^ 0xff;
    writeFileSync(path, bad);
    appendFileSync(path, bytes.subarray(0, 300));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.toString()).toContain("MISMATCH");
  });

  it("P8: bytes missing inside the indexed range are a mismatch even when what is left ends in a partial record", async () => {
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/b"))[0]!;
    truncateSync(path, c.offset + 100);
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.toString()).toContain(`MISMATCH ${file} offset ${c.offset + 100}`);
    expect(r.stdout.toString()).not.toContain("NOTE");
  });
});
