/**
 * `nor archive verify`: re-reads every record of every file and recomputes its block digest
 * and (responses) payload digest; checks that each revisit's payload exists as a response,
 * that nothing trails the last whole record, and that every index row points at a record.
 * Problems are results, not exceptions: the CLI prints them and exits 1.
 */
import { createReadStream, statSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../db.js";
import { fromRow } from "./captures.js";
import { sha256Digest } from "./digest.js";
import { listWarcFiles } from "./files.js";

export interface VerifyProblem {
  file: string;
  offset: number;
  problem: string;
}

export interface VerifyReport {
  files: number;
  records: number;
  digestsChecked: number;
  problems: VerifyProblem[];
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
  const report: VerifyReport = { files: 0, records: 0, digestsChecked: 0, problems: [] };
  const at = new Map<string, { id: string; length: number }>();
  const payloads = new Map<string, string>(); // uri + date → payload digest of responses
  const revisits: { file: string; offset: number; key: string; digest: string }[] = [];
  for (const file of listWarcFiles(dir)) {
    report.files += 1;
    const path = join(dir, file);
    const size = statSync(path).size;
    const parser = new WARCParser(createReadStream(path), { parseHttp: false });
    let end = 0;
    try {
      for await (const record of parser) {
        const block = await record.readFully(false);
        const offset = parser.offset;
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
      report.problems.push({ file, offset: end, problem: `unreadable from here: ${String(err)}` });
      continue;
    }
    if (end !== size) {
      report.problems.push({
        file,
        offset: end,
        problem: `${size - end} bytes after the last whole record`,
      });
    }
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
  if (db) {
    const rows = await db.selectFrom("captures").selectAll().execute();
    for (const row of rows) {
      const c = fromRow(row);
      const rec = at.get(`${c.file}@${c.offset}`);
      if (!rec || rec.id !== c.recordId || rec.length !== c.length) {
        report.problems.push({
          file: c.file,
          offset: c.offset,
          problem: `index row ${c.recordId} (${c.url}) matches no record there`,
        });
      }
    }
  }
  return report;
}
