/**
 * `nor archive verify`: re-reads every record of every file and recomputes its block digest
 * and (responses) payload digest; checks that each revisit's payload exists as a response,
 * that every index row points at a record, and that no file is shorter than the index says.
 * Problems are results, not exceptions: the CLI prints them and exits 1.
 *
 * Every record is its own gzip member, so a file is read member by member (members.ts), each
 * from its offset: a member that does not read (bad gzip data, its CRC or length, not a WARC
 * record) is one problem naming it (its offset, and its URL when the index names it), and
 * reading goes on at the next member, found at the next offset the index knows or the next gzip
 * header. The records before and after it are checked as ever; the index rows and revisits that
 * name the damaged record are not said again.
 *
 * Bytes after a file's last whole record, where the index names no record, are a record half
 * written when the copy was taken or the writer stopped: opening the archive cuts them off
 * (warc-archive.ts), no reader ever reads them, so they are a note, not a problem (a backup
 * taken while a night runs may end in one, docs/operations.md). Without the index (`db`) they
 * cannot be told from lost records, and are a problem.
 */
import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../../errors.js";
import type { Db } from "../db.js";
import { type Capture, fromRow } from "./captures.js";
import { sha256Digest } from "./digest.js";
import { archiveInTheWay, listWarcFiles } from "./files.js";
import { MemberReader, type WarcRecord } from "./members.js";
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

/** A member the index names: which capture's, and which of its records. */
interface Known {
  capture: Capture;
  role: "response" | "revisit" | "request";
  length: number;
}

/** A member that does not read, and the bytes after it up to the next member that does. */
interface Damage {
  problem: VerifyProblem;
  what: string;
  why: string;
  /** Where reading went on (a member that reads, or another damaged one the index names). */
  until?: number;
  size: number;
  /** Revisits whose payload it held. */
  revisits: number;
}

const CRLFCRLF = new Uint8Array([13, 10, 13, 10]);

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The first of `sorted` after `pos`. */
function after(sorted: number[], pos: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= pos) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo];
}

function describe(k: Known | undefined, offset: number, withIndex: boolean): string {
  if (!k && offset === 0) return "the file's first record";
  if (!k) return withIndex ? "a record the index does not name" : "the record here";
  return `the ${k.role} record of ${k.capture.url} (index row ${k.capture.recordId})`;
}

function damageText(d: Damage): string {
  const { offset } = d.problem;
  const refs =
    d.revisits === 0
      ? ""
      : ` (${d.revisits} ${d.revisits === 1 ? "revisit refers" : "revisits refer"} to its payload)`;
  const rest =
    d.until === undefined
      ? `nothing after it reads (${d.size - offset} bytes to the end of the file)`
      : `the records after it are read from offset ${d.until} on (${d.until - offset} bytes not read)`;
  return `${d.what} does not read: ${d.why}${refs}; ${rest}`;
}

export async function verifyArchive(dir: string, db?: Db): Promise<VerifyReport> {
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
  /** Every member the index names, by `file@offset`. */
  const known = new Map<string, Known>();
  /** Per file: every offset where the index says a member starts or ends, sorted. */
  const bounds = new Map<string, number[]>();
  const bound = (file: string, ...at: number[]) => {
    const list = bounds.get(file);
    if (list) list.push(...at);
    else bounds.set(file, [...at]);
  };
  for (const c of rows) {
    let end = c.offset + c.length;
    known.set(`${c.file}@${c.offset}`, { capture: c, role: c.recordType, length: c.length });
    bound(c.file, c.offset, c.offset + c.length);
    if (c.requestOffset !== undefined && c.requestLength !== undefined) {
      end = Math.max(end, c.requestOffset + c.requestLength);
      const at = `${c.file}@${c.requestOffset}`;
      if (!known.has(at)) known.set(at, { capture: c, role: "request", length: c.requestLength });
      bound(c.file, c.requestOffset, c.requestOffset + c.requestLength);
    }
    indexedEnd.set(c.file, Math.max(indexedEnd.get(c.file) ?? 0, end));
  }
  for (const [file, list] of bounds) {
    bounds.set(
      file,
      [...new Set(list)].sort((a, b) => a - b),
    );
  }
  /** Per file found cut short: its size; index rows past it are counted there, not one by one. */
  const shortAt = new Map<string, number>();
  const at = new Map<string, { id: string; length: number }>();
  const damaged = new Map<string, Damage>(); // file@offset → a member that does not read
  const payloads = new Map<string, string>(); // uri + date → payload digest of responses
  const revisits: { file: string; offset: number; key: string; digest: string }[] = [];

  /** The checks of one record that reads. */
  const check = (file: string, offset: number, length: number, record: WarcRecord) => {
    const h = (name: string) => record.headers.get(name);
    report.records += 1;
    const bad = (problem: string) => report.problems.push({ file, offset, problem });
    const id = h("warc-record-id") ?? "";
    at.set(`${file}@${offset}`, { id, length });
    const type = h("warc-type") ?? "";
    if (type === "warcinfo") return;
    const uri = h("warc-target-uri") ?? "";
    const of = uri ? ` of ${uri}` : "";
    const block = record.block;
    const blockDigest = h("warc-block-digest");
    if (!blockDigest) bad(`${type} record ${id}${of} has no WARC-Block-Digest`);
    else if (sha256Digest(block) !== blockDigest)
      bad(`block digest mismatch in ${type} ${id}${of}`);
    else report.digestsChecked += 1;
    const payloadDigest = h("warc-payload-digest") ?? "";
    if (type === "response") {
      const split = indexOf(block, CRLFCRLF);
      const payload = split < 0 ? new Uint8Array(0) : block.subarray(split + 4);
      if (sha256Digest(payload) !== payloadDigest)
        bad(`payload digest mismatch in response ${id}${of}`);
      else report.digestsChecked += 1;
      payloads.set(`${uri} ${h("warc-date")}`, payloadDigest);
    } else if (type === "revisit") {
      const key = `${h("warc-refers-to-target-uri")} ${h("warc-refers-to-date")}`;
      revisits.push({ file, offset, key, digest: payloadDigest });
    }
  };

  const files = listWarcFiles(dir);
  for (const file of files) {
    report.files += 1;
    const path = join(dir, file);
    const size = statSync(path).size;
    const indexed = indexedEnd.get(file) ?? 0;
    const short = db !== undefined && indexed > size;
    // After every record the index names, a member that does not read is the half-written tail.
    const tailFrom = db && !short ? indexed : undefined;
    const fileBounds = bounds.get(file) ?? [];
    let current: Damage | undefined;
    const close = (pos: number) => {
      if (current) current.until = pos;
      current = undefined;
    };
    const fh = await open(path, "r");
    try {
      const reader = new MemberReader(fh, size);
      let pos = 0;
      while (pos < size) {
        const k = known.get(`${file}@${pos}`);
        const m = await reader.readAt(pos, k?.length);
        if (m.ok) {
          close(pos);
          check(file, pos, m.end - pos, m.record);
          pos = m.end;
          continue;
        }
        if (tailFrom !== undefined && pos >= tailFrom) {
          close(pos);
          report.notes.push({
            file,
            offset: pos,
            problem: `${size - pos} bytes after the last whole record: a record half written (a copy taken while a night wrote, or a writer stopped), which the index does not name; nor cuts a record cut short at the file's end off when it next opens the archive, and leaves anything else as it is`,
          });
          break;
        }
        const next = after(fileBounds, pos);
        // The member the file's cut falls in: said for the file below, with the copies lost.
        if (m.eof && short && (next === undefined || next >= size)) {
          close(pos);
          break;
        }
        // A damaged member: said once. Inside the bytes after it, a gzip header that leads to no
        // member is not said again; a member the index names there that does not read is.
        if (!current || k) {
          close(pos);
          const problem: VerifyProblem = { file, offset: pos, problem: "" };
          current = {
            problem,
            what: describe(k, pos, db !== undefined),
            why: m.why,
            size,
            revisits: 0,
          };
          damaged.set(`${file}@${pos}`, current);
          report.problems.push(problem);
        }
        const resume = await reader.nextStart(pos + 1, next);
        if (resume === undefined) break;
        pos = resume;
      }
    } finally {
      await fh.close();
    }
    if (short) {
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
    const ref = known.get(`${r.file}@${r.offset}`)?.capture.refersTo;
    const lost = ref && damaged.get(`${ref.file}@${ref.offset}`);
    if (orig === undefined && lost) {
      lost.revisits += 1; // said with the damaged record
    } else if (orig === undefined && db !== undefined && !known.has(`${r.file}@${r.offset}`)) {
      // A revisit the index does not name (its original's file lost and forgotten, `nor archive
      // forget`): no stored copy is read from it, so it is said, and is no failure.
      report.notes.push({
        file: r.file,
        offset: r.offset,
        problem: `a revisit the index does not name refers to ${r.key}, not in the archive (its file forgotten?); no stored copy is read from it`,
      });
    } else if (orig === undefined && ref !== undefined && !present.has(ref.file)) {
      // Its original's file gone, the index naming no copy in it but this revisit's (a night's
      // revisit committed just after the file was forgotten): the file is named, to put back or
      // forget.
      report.problems.push({
        file: r.file,
        offset: r.offset,
        problem: `revisit refers to ${r.key}, in ${ref.file}, gone from the archive (put it back from a backup if there is one, or if it is truly lost: nor archive forget ${ref.file})`,
      });
    } else if (orig === undefined) {
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
    if (damaged.has(`${c.file}@${c.offset}`)) continue; // said as the damaged record
    const rec = at.get(`${c.file}@${c.offset}`);
    if (!rec || rec.id !== c.recordId || rec.length !== c.length) {
      report.problems.push({
        file: c.file,
        offset: c.offset,
        problem: `index row ${c.recordId} (${c.url}) matches no record there`,
      });
    }
  }
  for (const d of damaged.values()) d.problem.problem = damageText(d);
  return report;
}
