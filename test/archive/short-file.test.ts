/**
 * P8: a WARC file cut short (a copy or a restore that stopped part way, a disk that lost its
 * tail) holds fewer bytes than the index names in it. What is whole before the cut stays in use;
 * the records past it are copies no longer held (asked again when needed, never used half); the
 * archive still opens, says so once, and never writes into that file again (new records go to a
 * new file). `nor archive verify` names the file and how many bytes it lacks.
 */
import { readFileSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

const T0 = Date.UTC(2026, 10, 5, 8);
const urls = [1, 2, 3, 4].map((i) => `http://127.0.0.2/page/${i}`);
const body = (i: number) => `<p>page ${i} ${"x".repeat(200 * i)}</p>`;

describe("a WARC file cut short (P8)", () => {
  let t: TempStore;
  let file: string;
  let path: string;
  let cut: number;
  let indexedEnd: number;
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    for (const [i, u] of urls.entries()) await a.write(exchange(u, body(i), { at: T0 + i }));
    await a.close();
    file = listWarcFiles(t.archiveDir)[0]!;
    path = join(t.archiveDir, file);
    indexedEnd = statSync(path).size;
    // Cut inside the third page's response record: pages 0 and 1 stay whole.
    const third = (await capturesOf(t.store.db, urls[2]!))[0]!;
    cut = third.offset + Math.floor(third.length / 2);
    truncateSync(path, cut);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: opens, says once which file is short and by how much, keeps the records before the cut, never uses one past it, and writes new records to a new file", async () => {
    const notes: string[] = [];
    const before = readFileSync(path);
    const a = await WarcArchive.open(t.archiveDir, {
      ...t.archiveOptions,
      note: (n) => notes.push(n),
    });
    try {
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(path);
      expect(notes[0]).toContain(`${indexedEnd - cut} bytes short`);
      expect(notes[0]).toContain(`up to byte ${indexedEnd}`);
      expect(notes[0]).toContain(`has ${cut} bytes`);
      expect(notes[0]).toContain("2 stored copies");
      expect(a.shortFiles).toEqual([{ file, size: cut, indexedEnd, copiesLost: 2 }]);
      // Left as it is: a whole copy from a backup can still be put back over it.
      expect(readFileSync(path).equals(before)).toBe(true);

      for (const [i, u] of urls.entries()) {
        const got = await a.bodyOf({ url: u, method: "GET", fetchedAt: T0 + i });
        if (i < 2) expect(new TextDecoder().decode(got)).toBe(body(i));
        else expect(got).toBeUndefined();
      }
      // The same payload as a lost copy is stored again in full, not as a revisit of it; and
      // it goes to a new file, never after the cut.
      await a.write(exchange(urls[3]!, body(3), { at: T0 + 10 }));
      // The same payload as a copy before the cut is a revisit of it, as ever.
      await a.write(exchange(urls[0]!, body(0), { at: T0 + 11 }));
      const next = a.currentFile!;
      expect(next).not.toBe(file);
      const again = (await capturesOf(t.store.db, urls[3]!)).at(-1)!;
      expect(again).toMatchObject({ file: next, recordType: "response" });
      const same = (await capturesOf(t.store.db, urls[0]!)).at(-1)!;
      expect(same).toMatchObject({ file: next, recordType: "revisit" });
      expect(same.refersTo?.file).toBe(file);
      expect(
        new TextDecoder().decode(
          await a.bodyOf({ url: urls[3]!, method: "GET", fetchedAt: T0 + 10 }),
        ),
      ).toBe(body(3));
    } finally {
      await a.close();
    }
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(a.recoveredBytes).toBe(0);
  });

  it("P8: opening it again (the next night) still works and says it again", async () => {
    for (let night = 0; night < 2; night++) {
      const notes: string[] = [];
      const a = await WarcArchive.open(t.archiveDir, {
        ...t.archiveOptions,
        note: (n) => notes.push(n),
      });
      await a.write(exchange(`http://127.0.0.3/n/${night}`, `night ${night}`, { at: T0 + 100 }));
      await a.close();
      expect(notes).toHaveLength(1);
    }
    expect(statSync(path).size).toBe(cut);
  });

  it("P8: verify fails, naming the file and how many bytes it lacks", async () => {
    const report = await verifyArchive(t.archiveDir, t.store.db);
    const short = report.problems.filter((p) => p.problem.includes("bytes short"));
    expect(short).toHaveLength(1);
    expect(short[0]).toMatchObject({ file, offset: cut });
    expect(short[0]!.problem).toContain(`${indexedEnd - cut} bytes short`);
    expect(short[0]!.problem).toContain("2 stored copies");

    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.toString()).toContain(
      `MISMATCH ${file} offset ${cut}: ${indexedEnd - cut} bytes short`,
    );
  });
});
