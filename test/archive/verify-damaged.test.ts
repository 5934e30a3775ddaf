/**
 * P8, docs/operations.md ("Backups"): every record is its own gzip member, so `nor archive
 * verify` reads a file member by member. One damaged member (a flipped byte: bad gzip data, its
 * CRC or length) is one MISMATCH naming that record (its offset, its URL from the index, what is
 * wrong); the records before and after it are read and checked as ever, and no index row or
 * revisit of an intact record is said to be wrong. Before, the file was read as one stream that
 * stopped at the damage, and every record after it was said to match no record.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Capture, capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

const T0 = Date.UTC(2026, 10, 5, 8);
const PAGES = ["a", "b", "c", "d", "e", "f", "g"];
const url = (p: string) => `http://127.0.0.2/${p}`;
/** A body of some size, so a byte flipped in its member's middle lands in its deflate data. */
const body = (p: string) =>
  `<ul>${Array.from({ length: 60 }, (_, i) => `<li>${p} minutes ${i * 7919}</li>`).join("")}</ul>`;

describe("nor archive verify: a damaged gzip member in the middle of a file (P8)", () => {
  let t: TempStore;
  let file: string;
  let path: string;
  let clean: { records: number; digestsChecked: number };
  /** The latest capture of each page; `c` also has a revisit (written last). */
  const at: Record<string, Capture> = {};
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    for (const [i, p] of PAGES.entries()) {
      await a.write(exchange(url(p), body(p), { at: T0 + i * 1000 }));
    }
    // The same page again, the same bytes: a revisit of c's response.
    await a.write(exchange(url("c"), body("c"), { at: T0 + 60_000 }));
    await a.close();
    const files = listWarcFiles(t.archiveDir);
    expect(files).toHaveLength(1);
    file = files[0]!;
    path = join(t.archiveDir, file);
    for (const p of PAGES) {
      const all = await capturesOf(t.store.db, url(p));
      at[p] = all.find((c) => c.recordType === "response")!;
      expect(at[p]!.file).toBe(file);
    }
    const revisit = (await capturesOf(t.store.db, url("c"))).find(
      (c) => c.recordType === "revisit",
    );
    expect(revisit?.refersTo?.offset).toBe(at.c!.offset);
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([]);
    clean = { records: r.records, digestsChecked: r.digestsChecked };
    // warcinfo, 7 (response, request) pairs, the revisit and its request.
    expect(clean.records).toBe(1 + 2 * 7 + 2);
  });
  afterEach(async () => {
    await t.cleanup();
  });

  /** Flips bytes of the file in place. */
  function flip(...offsets: number[]): void {
    const bytes = Buffer.from(readFileSync(path));
    for (const o of offsets) bytes[o] = (bytes[o] ?? 0) ^ 0xff;
    writeFileSync(path, bytes);
  }

  const middle = (c: Capture) => c.offset + Math.floor(c.length / 2);

  it.each([
    ["a byte in the middle of its deflate data", middle, /bad gzip data|CRC mismatch/],
    [
      "the first byte of its gzip header",
      (c: Capture) => c.offset,
      /not the start of a gzip member/,
    ],
    ["a byte of its CRC-32", (c: Capture) => c.offset + c.length - 6, /CRC mismatch/],
    ["a byte of its length", (c: Capture) => c.offset + c.length - 2, /length mismatch/],
  ])(
    "P8: %s flipped: one MISMATCH naming that record, its URL and what is wrong; every record before and after it is checked, none said wrong",
    async (_what, where, why) => {
      const c = at.d!;
      flip(where(c));
      const r = await verifyArchive(t.archiveDir, t.store.db);
      expect(r.problems).toEqual([
        {
          file,
          offset: c.offset,
          problem: expect.stringContaining(`the response record of ${url("d")}`),
        },
      ]);
      expect(r.problems[0]!.problem).toMatch(why);
      expect(r.problems[0]!.problem).toContain(c.recordId);
      expect(r.problems[0]!.problem).toContain(
        `the records after it are read from offset ${c.offset + c.length} on (${c.length} bytes not read)`,
      );
      expect(r.notes).toEqual([]);
      // Only d's response is not read: the 16 others are, with all their digests.
      expect(r.records).toBe(clean.records - 1);
      expect(r.digestsChecked).toBe(clean.digestsChecked - 2);
      // The records before and after it read back whole, as `nor archive show` reads them.
      for (const p of ["a", "b", "c", "e", "f", "g"]) {
        const back = await readCapture(t.archiveDir, at[p]!);
        expect(new TextDecoder().decode(back.body)).toBe(body(p));
      }

      const cli = await runCli(["archive", "verify", "--data", t.dataDir]);
      const out = cli.stdout.toString();
      expect(cli.code, out + cli.stderr).toBe(1);
      const lines = out.trim().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        new RegExp(`^MISMATCH ${file} offset ${c.offset}: the response record of ${url("d")} `),
      );
      expect(out).not.toContain("matches no record");
      expect(out).not.toContain("bytes after the last whole record");
      expect(lines[1]).toBe(
        `1 file, ${clean.records - 1} records, ${clean.digestsChecked - 2} digests checked, 1 problem`,
      );
    },
  );

  it("P8: a damaged record that a revisit refers to: one MISMATCH, saying the revisit's payload is lost with it; the revisit is not said again", async () => {
    const c = at.c!;
    flip(middle(c));
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ file, offset: c.offset });
    expect(r.problems[0]!.problem).toContain(`the response record of ${url("c")}`);
    expect(r.problems[0]!.problem).toContain("1 revisit refers to its payload");
    expect(r.records).toBe(clean.records - 1);
  });

  it("P8: two damaged members, apart: two MISMATCHes, each naming its record; everything else checked", async () => {
    const [b, f] = [at.b!, at.f!];
    flip(middle(b), middle(f));
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems.map((p) => [p.file, p.offset])).toEqual([
      [file, b.offset],
      [file, f.offset],
    ]);
    expect(r.problems[0]!.problem).toContain(`the response record of ${url("b")}`);
    expect(r.problems[1]!.problem).toContain(`the response record of ${url("f")}`);
    for (const p of r.problems) expect(p.problem).toMatch(/bad gzip data|CRC mismatch/);
    expect(r.notes).toEqual([]);
    expect(r.records).toBe(clean.records - 2);
    expect(r.digestsChecked).toBe(clean.digestsChecked - 4);
  });

  it("P8: two damaged members side by side (a response and its request): each is said, and reading goes on after both", async () => {
    const e = at.e!;
    const requestEnd = e.requestOffset! + e.requestLength!;
    expect(e.requestOffset).toBe(e.offset + e.length);
    flip(middle(e), e.requestOffset! + Math.floor(e.requestLength! / 2));
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems.map((p) => p.offset)).toEqual([e.offset, e.requestOffset]);
    expect(r.problems[0]!.problem).toContain(`the response record of ${url("e")}`);
    expect(r.problems[1]!.problem).toContain(`the request record of ${url("e")}`);
    expect(r.problems[1]!.problem).toContain(`read from offset ${requestEnd} on`);
    expect(r.records).toBe(clean.records - 2);
  });

  it("P8: bytes overwritten across two members: both records said, nothing after them", async () => {
    const [b, c] = [at.b!, at.c!];
    // From the middle of b's request into the middle of c's response: zeros, no gzip header.
    const from = b.requestOffset! + Math.floor(b.requestLength! / 2);
    const to = middle(c);
    const bytes = Buffer.from(readFileSync(path));
    bytes.fill(0, from, to);
    writeFileSync(path, bytes);
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems.map((p) => p.offset)).toEqual([b.requestOffset, c.offset]);
    expect(r.problems[1]!.problem).toContain("not the start of a gzip member");
    expect(r.problems[1]!.problem).toContain("1 revisit refers to its payload");
    expect(r.records).toBe(clean.records - 2);
  });

  it("P8: a damaged member and a half-written tail: the record a MISMATCH, the tail still a NOTE", async () => {
    const d = at.d!;
    const size = readFileSync(path).length;
    flip(middle(d));
    appendFileSync(path, readFileSync(path).subarray(0, 300));
    const r = await verifyArchive(t.archiveDir, t.store.db);
    expect(r.problems.map((p) => p.offset)).toEqual([d.offset]);
    expect(r.notes).toEqual([
      {
        file,
        offset: size,
        problem: expect.stringContaining("300 bytes after the last whole record"),
      },
    ]);
  });

  it("P8: without the index, a damaged member is still one problem, and the members after it are found by their gzip headers", async () => {
    const d = at.d!;
    flip(middle(d));
    const r = await verifyArchive(t.archiveDir);
    expect(r.problems).toEqual([
      {
        file,
        offset: d.offset,
        problem: expect.stringContaining(`read from offset ${d.offset + d.length} on`),
      },
    ]);
    expect(r.records).toBe(clean.records - 1);
  });
});
