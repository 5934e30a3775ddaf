/**
 * The private copy (P8): every response read goes into WARC 1.1 files under DIR/archive/,
 * indexed in the store's `captures` table. Crash-safe by ordering: a record's bytes are
 * written and fsynced before its row is committed, so the index never names a record that
 * is not wholly on disk; on open, anything in the last file past the last indexed record (a
 * half-written gzip member from a killed process) is cut off, which leaves a file of whole
 * members that warcio and every other WARC reader accept.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { join } from "node:path";
import { type Clock, systemClock } from "../../clock.js";
import { NorError } from "../../errors.js";
import type { ArchivePort } from "../../net/types.js";
import type { Db } from "../db.js";
import { type Capture, indexedEnd, insertCapture, latestCapture } from "./captures.js";
import { sha256Digest } from "./digest.js";
import { DEFAULT_ROTATE_BYTES, fileName, listWarcFiles, seqOf } from "./files.js";
import { readRecordAt } from "./read.js";
import {
  type Exchange,
  type Original,
  requestRecord,
  responseRecord,
  warcDate,
  warcinfoRecord,
} from "./records.js";

export interface WarcArchiveOptions {
  clock?: Clock;
  /** Start a new file once this many bytes are written (default 1 GB). */
  rotateBytes?: number;
  db: Db;
}

interface Current {
  name: string;
  fh: FileHandle;
  size: number;
  /** False while the file holds only its warcinfo record. */
  hasRecords: boolean;
}

export class WarcArchive implements ArchivePort {
  readonly dir: string;
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #rotateBytes: number;
  #current: Current | undefined;
  #seq: number;
  /** Writes are serialized: one writer, records appended whole, in order. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Bytes cut off the last file on open (a record half-written by a killed process). */
  recoveredBytes = 0;

  private constructor(dir: string, opts: WarcArchiveOptions, seq: number) {
    this.dir = dir;
    this.#db = opts.db;
    this.#clock = opts.clock ?? systemClock;
    this.#rotateBytes = opts.rotateBytes ?? DEFAULT_ROTATE_BYTES;
    this.#seq = seq;
  }

  /** `dir` is the archive directory itself (DIR/archive, see archiveDir()). */
  static async open(dir: string, opts: WarcArchiveOptions): Promise<WarcArchive> {
    if (opts.rotateBytes !== undefined && !(opts.rotateBytes > 0)) {
      throw new NorError(
        "E_CONFIG",
        `archive rotateBytes must be positive, not ${opts.rotateBytes}`,
      );
    }
    mkdirSync(dir, { recursive: true });
    const files = listWarcFiles(dir);
    const last = files.at(-1);
    const archive = new WarcArchive(dir, opts, last ? seqOf(last) : 0);
    if (last) await archive.#recover(last);
    return archive;
  }

  async #recover(name: string): Promise<void> {
    const path = join(this.dir, name);
    const size = (await stat(path)).size;
    const end = await indexedEnd(this.#db, name);
    if (end > size) {
      throw new NorError(
        "E_ARCHIVE",
        `${path}: the index names records up to byte ${end} but the file has ${size} bytes`,
      );
    }
    if (end === 0) {
      // Nothing indexed here: only a warcinfo (and maybe a torn record). Start it afresh.
      this.recoveredBytes = size;
      this.#current = await this.#openFile(name, true);
      return;
    }
    this.recoveredBytes = size - end;
    const fh = await open(path, "r+");
    if (end < size) {
      await fh.truncate(end);
      await fh.datasync();
    }
    this.#current = { name, fh, size: end, hasRecords: true };
  }

  async #openFile(name: string, fresh: boolean): Promise<Current> {
    const fh = await open(join(this.dir, name), fresh ? "w" : "a");
    const info = await warcinfoRecord(name, this.#clock.now());
    await fh.write(info, 0, info.length, 0);
    await fh.datasync();
    return { name, fh, size: info.length, hasRecords: false };
  }

  write(exchange: Exchange): Promise<void> {
    if (this.#closed) return Promise.reject(new NorError("E_ARCHIVE", "archive is closed"));
    const run = this.#queue.then(() => this.#write(exchange));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #write(ex: Exchange): Promise<void> {
    const url = ex.response.url;
    const body = ex.response.body;
    const digest = sha256Digest(body);
    const prior = body.length > 0 ? await latestCapture(this.#db, url) : undefined;
    const found = prior?.payloadDigest === digest ? await this.#originalOf(prior) : undefined;
    // A revisit must point at a payload that still reads back whole; one deleted or damaged on
    // disk would make this answer unrecoverable too, so the body is stored again in full.
    const original = found && (await this.#readsBack(found.at, digest)) ? found : undefined;

    const responseId = `<urn:uuid:${randomUUID()}>`;
    const requestId = `<urn:uuid:${randomUUID()}>`;
    const rec = await responseRecord(ex, responseId, digest, original?.warc);
    const req = await requestRecord(ex, requestId, responseId);

    const cur = await this.#fileFor(rec.length + req.length);
    const offset = cur.size;
    await cur.fh.write(rec, 0, rec.length, offset);
    await cur.fh.write(req, 0, req.length, offset + rec.length);
    // Durable before indexed: a row must never point at bytes a crash could lose.
    await cur.fh.datasync();
    cur.size += rec.length + req.length;
    cur.hasRecords = true;

    const h = ex.response.headers;
    const capture: Capture = {
      recordId: responseId,
      url,
      fetchedAt: ex.fetchedAt,
      file: cur.name,
      offset,
      length: rec.length,
      requestOffset: offset + rec.length,
      requestLength: req.length,
      recordType: original ? "revisit" : "response",
      method: ex.request.method,
      status: ex.response.status,
      payloadDigest: digest,
      payloadLength: body.length,
      purpose: ex.purpose,
    };
    const mime = h["content-type"];
    if (mime !== undefined) capture.mime = mime;
    if (h["etag"] !== undefined) capture.etag = h["etag"];
    if (h["last-modified"] !== undefined) capture.lastModified = h["last-modified"];
    if (ex.source !== undefined) capture.source = ex.source;
    if (original) capture.refersTo = original.at;
    await insertCapture(this.#db, capture);
  }

  async #readsBack(at: NonNullable<Capture["refersTo"]>, digest: string): Promise<boolean> {
    try {
      const { payload } = await readRecordAt(join(this.dir, at.file), at.offset, at.length);
      return sha256Digest(payload) === digest;
    } catch {
      return false;
    }
  }

  /** The response record that really holds this payload (a revisit points at its original). */
  async #originalOf(
    c: Capture,
  ): Promise<{ warc: Original; at: NonNullable<Capture["refersTo"]> } | undefined> {
    if (c.recordType === "revisit") {
      if (!c.refersTo) return undefined;
      const row = await this.#db
        .selectFrom("captures")
        .select(["url", "fetched_at"])
        .where("record_id", "=", c.refersTo.recordId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        warc: { url: row.url, date: warcDate(Date.parse(row.fetched_at)) },
        at: c.refersTo,
      };
    }
    return {
      warc: { url: c.url, date: warcDate(c.fetchedAt) },
      at: { recordId: c.recordId, file: c.file, offset: c.offset, length: c.length },
    };
  }

  /** The file to append `bytes` to: rotates once the current one has reached the size. */
  async #fileFor(bytes: number): Promise<Current> {
    const cur = this.#current;
    if (cur && cur.size + bytes <= this.#rotateBytes) return cur;
    // A record larger than the rotation size still goes whole into a file of its own.
    if (cur && !cur.hasRecords) return cur;
    if (cur) await cur.fh.close();
    this.#seq += 1;
    this.#current = await this.#openFile(fileName(this.#seq, this.#clock.now()), true);
    return this.#current;
  }

  /** Name of the file being written (for tests and `nor archive`). */
  get currentFile(): string | undefined {
    return this.#current?.name;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.#current?.fh.close();
    this.#current = undefined;
  }
}
