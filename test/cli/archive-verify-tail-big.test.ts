/**
 * P8, docs/operations.md ("Backups"): `nor archive verify` says bytes after the last record
 * the index names, that are no whole record, as a NOTE (exit 0) whatever their size: a backup
 * taken while a large page was being written must verify. A damaged record the index names is
 * still a MISMATCH, and a whole record after it that the index does not name is read as any.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { runCli } from "../archive/support/run-cli.js";

const T0 = Date.UTC(2026, 10, 5, 8);

/** A random body does not compress: its gzip member is as large as it. */
function randomBody(n: number): Uint8Array {
  return new Uint8Array(randomBytes(n));
}

describe("nor archive verify: a large half-written record after the last indexed one (P8)", () => {
  let t: TempStore;
  let file: string;
  let path: string;
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/a", "<p>a</p>", { at: T0 }));
    await a.write(exchange("http://127.0.0.2/big", randomBody(600_000), { at: T0 + 1 }));
    await a.close();
    file = listWarcFiles(t.archiveDir)[0]!;
    path = join(t.archiveDir, file);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: the first 60% of a ~600 KB record's gzip member appended: a NOTE of all of it, exit 0", async () => {
    const size = statSync(path).size;
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/big"))[0]!;
    expect(c.length).toBeGreaterThan(500_000);
    const part = Math.floor(c.length * 0.6);
    appendFileSync(path, readFileSync(path).subarray(c.offset, c.offset + part));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    const out = r.stdout.toString();
    expect(r.code, out + r.stderr).toBe(0);
    expect(out).not.toContain("MISMATCH");
    expect(out).toContain(`NOTE ${file} offset ${size}: ${part} bytes after the last whole record`);
    expect(out).toContain("0 problems, 1 note");
  });

  it("P8: a whole unindexed record, then 60% of a large one: the whole one is read, the rest a NOTE", async () => {
    const clean = (await verifyArchive(t.archiveDir, t.store.db)).records;
    const bytes = readFileSync(path);
    const a = (await capturesOf(t.store.db, "http://127.0.0.2/a"))[0]!;
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/big"))[0]!;
    const size = bytes.length;
    appendFileSync(path, bytes.subarray(a.offset, a.offset + a.length));
    const part = Math.floor(c.length * 0.6);
    appendFileSync(path, bytes.subarray(c.offset, c.offset + part));
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([
      {
        file,
        offset: size + a.length,
        problem: expect.stringContaining(`${part} bytes after the last whole record`),
      },
    ]);
    // The whole appended record is read and checked as any record; the cut one is not counted.
    expect(r.records).toBe(clean + 1);
  });

  it("P8: a large record the index names, cut in its middle with a tail after it, is still a MISMATCH (exit 1)", async () => {
    const bytes = readFileSync(path);
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/big"))[0]!;
    const bad = Buffer.from(bytes);
    const at = c.offset + Math.floor(c.length * 0.6);
    for (let i = 0; i < 64; i++) bad[at + i] = (bad[at + i] ?? 0) ^ 0xff;
    writeFileSync(path, bad);
    appendFileSync(path, bytes.subarray(c.offset, c.offset + Math.floor(c.length * 0.6)));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.toString()).toContain("MISMATCH");
  });
});
