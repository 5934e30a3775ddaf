/**
 * `nor archive verify`: re-reads every record of every file and recomputes its block digest
 * and (responses) payload digest; checks that each revisit's payload exists as a response,
 * that every index row points at a record, and that no file is shorter than the index says.
 * Problems are results, not exceptions: the CLI prints them and exits 1.
 *
 * Bytes after a file's last whole record, where the index names no record, are a record half
 * written when the copy was taken or the writer stopped: opening the archive cuts them off
 * (warc-archive.ts), no reader ever reads them, so they are a note, not a problem (a backup
 * taken while a night runs may end in one, docs/operations.md). Without the index (`db`) they
 * cannot be told from lost records, and are a problem.
 */
import { createReadStream, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../errors.js";
import type { Db } from "../db.js";
import { fromRow } from "./captures.js";
import { sha256Digest } from "./digest.js";
import { archiveInTheWay, listWarcFiles } from "./files.js";
import { copies, kindOf, noArchiveText } from "./presence.js";

export interface VerifyProblem {
  file: string;
  offset: number;
  problem: string;
  /** A file the index names that is not in the archive: said once for the file, not per row. */
  gone?: true;
}

export interface VerifyReport {
  files: number;
  records: number;
  digestsChecked: number;
  problems: VerifyProblem[];
  /** Worth saying, nothing wrong: a half-written record after the last indexed one. */
  notes: VerifyProblem[];
}

/** A record whose block is shorter than its Content-Length says: its member was cut. */
function cutShort(record: { warcContentLength: number }, block: Uint8Array): boolean {
  const declared = record.warcContentLength;
  return Number.isFinite(declared) && declared > block.length;
}

const CRLFCRLF = new Uint8Array([13, 10, 13, 10]);

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export async function verifyArchive(dir: string, db?: Db): Promise<VerifyReport> {
  // Loaded here, not with the archive: a night never needs warcio (and its wasm hasher).
  const { WARCParser } = await import("warcio");
  const report: VerifyReport = {
    files: 0,
    records: 0,
    digestsChecked: 0,
    problems: [],
    notes: [],
  };
  // The index is read before the files: every row committed by then names records that were
  // on disk before it (P8), so a night writing meanwhile adds no false "matches no record".
  const rows = db ? (await db.selectFrom("captures").selectAll().execute()).map(fromRow) : [];
  const here = kindOf(dir);
  if (here === "other") throw new ConfigError(archiveInTheWay(dir));
  if (here === "none" && rows.length > 0) {
    // No archive at all where it was looked for: a --data that names another directory (the
    // index may be elsewhere, PostgreSQL), or an archive moved away. Not a record in it is
    // wrong; it is not there to check (exit 2, as a mistyped --data is said everywhere).
    throw new ConfigError(
      `${noArchiveText(dir, rows.length)} (check --data; put the archive back if it was moved)`,
    );
  }
  /** Per file: the end of the last record the index names in it. */
  const indexedEnd = new Map<string, number>();
  for (const c of rows) {
    let end = c.offset + c.length;
    if (c.requestOffset !== undefined && c.requestLength !== undefined)
      end = Math.max(end, c.requestOffset + c.requestLength);
    indexedEnd.set(c.file, Math.max(indexedEnd.get(c.file) ?? 0, end));
  }
  /** Per file found cut short: its size; index rows past it are counted there, not one by one. */
  const shortAt = new Map<string, number>();
  const at = new Map<string, { id: string; length: number }>();
  const payloads = new Map<string, string>(); // uri + date → payload digest of responses
  const revisits: { file: string; offset: number; key: string; digest: string }[] = [];
  const files = listWarcFiles(dir);
  for (const file of files) {
    report.files += 1;
    const path = join(dir, file);
    const size = statSync(path).size;
    const input = createReadStream(path);
    const parser = new WARCParser(input, { parseHttp: false });
    let end = 0;
    let unreadable: unknown;
    try {
      const tailFrom = db ? (indexedEnd.get(file) ?? 0) : undefined;
      for await (const record of parser) {
        const block = await record.readFully(false);
        const offset = parser.offset;
        // A gzip member cut short (a copy taken mid-write, a full disk) still gives its WARC
        // header and as much of its block as was written: its block is shorter than its
        // Content-Length. After every record the index names, it and whatever follows are the
        // half-written tail (a note below), however large; a record the index names is read
        // and checked as ever (a digest mismatch).
        if (tailFrom !== undefined && offset >= tailFrom && cutShort(record, block)) break;
        end = offset + parser.recordLength;
        report.records += 1;
        const bad = (problem: string) => report.problems.push({ file, offset, problem });
        const id = record.warcHeader("WARC-Record-ID") ?? "";
        at.set(`${file}@${offset}`, { id, length: parser.recordLength });
        const type = record.warcType;
        if (type === "warcinfo") continue;
        const blockDigest = record.warcBlockDigest;
        if (!blockDigest) bad(`${type} record ${id} has no WARC-Block-Digest`);
        else if (sha256Digest(block) !== blockDigest) bad(`block digest mismatch in ${type} ${id}`);
        else report.digestsChecked += 1;
        const payloadDigest = record.warcPayloadDigest ?? "";
        const uri = record.warcTargetURI ?? "";
        if (type === "response") {
          const split = indexOf(block, CRLFCRLF);
          const payload = split < 0 ? new Uint8Array(0) : block.subarray(split + 4);
          if (sha256Digest(payload) !== payloadDigest)
            bad(`payload digest mismatch in response ${id}`);
          else report.digestsChecked += 1;
          payloads.set(`${uri} ${record.warcDate}`, payloadDigest);
        } else if (type === "revisit") {
          const key = `${record.warcRefersToTargetURI} ${record.warcRefersToDate}`;
          revisits.push({ file, offset, key, digest: payloadDigest });
        }
      }
    } catch (err) {
      unreadable = err;
    } finally {
      input.destroy(); // read to its end, or left at a cut record
    }
    const indexed = indexedEnd.get(file) ?? 0;
    if (db && indexed > size) {
      shortAt.set(file, size);
      const lost = rows.filter((c) => c.file === file && c.offset + c.length > size).length;
      const what =
        lost === 0
          ? "only request records lie past its end"
          : `${lost} stored ${lost === 1 ? "copy" : "copies"} past byte ${size} lost`;
      report.problems.push({
        file,
        offset: size,
        problem: `${indexed - size} bytes short: the index names records up to byte ${indexed} but the file has ${size} bytes (${what}; put back a whole copy of the file from a backup if there is one)`,
      });
    } else if (db && (unreadable !== undefined || end !== size) && indexed <= end) {
      // After every record the index names: a record half written, skipped on open.
      report.notes.push({
        file,
        offset: end,
        problem: `${size - end} bytes after the last whole record: a record half written (a copy taken while a night wrote, or a writer stopped), which the index does not name; nor cuts it off when it next opens the archive`,
      });
    } else if (unreadable !== undefined) {
      report.problems.push({
        file,
        offset: end,
        problem: `unreadable from here: ${String(unreadable)}`,
      });
    } else if (end !== size) {
      report.problems.push({
        file,
        offset: end,
        problem: `${size - end} bytes after the last whole record`,
      });
    }
  }
  // A file the index names that is not there: said once for the file (its rows are not each
  // said to match no record), as `nor reparse` says it.
  const present = new Set(files);
  const gone = new Map<string, number>();
  for (const c of rows) if (!present.has(c.file)) gone.set(c.file, (gone.get(c.file) ?? 0) + 1);
  for (const [file, n] of gone) {
    report.problems.push({
      file,
      offset: 0,
      problem: `the file is gone from the archive (moved or deleted), though the index names ${copies(n)} in it (put it back from a backup if there is one)`,
      gone: true,
    });
  }
  for (const r of revisits) {
    const orig = payloads.get(r.key);
    if (orig === undefined) {
      report.problems.push({
        file: r.file,
        offset: r.offset,
        problem: `revisit refers to ${r.key}, not in the archive`,
      });
    } else if (orig !== r.digest) {
      report.problems.push({
        file: r.file,
        offset: r.offset,
        problem: `revisit digest ${r.digest} differs from its original's ${orig}`,
      });
    }
  }
  for (const c of rows) {
    if (gone.has(c.file)) continue; // said for the file
    const short = shortAt.get(c.file);
    if (short !== undefined && c.offset + c.length > short) continue; // said for the file
    const rec = at.get(`${c.file}@${c.offset}`);
    if (!rec || rec.id !== c.recordId || rec.length !== c.length) {
      report.problems.push({
        file: c.file,
        offset: c.offset,
        problem: `index row ${c.recordId} (${c.url}) matches no record there`,
      });
    }
  }
  return report;
}
