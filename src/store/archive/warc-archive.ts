/**
 * The private copy (P8): every response read goes into WARC 1.1 files under DIR/archive/,
 * indexed in the store's `captures` table. Crash-safe by ordering: a record's bytes are
 * written and fsynced before its row is committed, so the index never names a record that
 * is not wholly on disk; on open, anything in the last file past the last indexed record (a
 * half-written gzip member from a killed process) is cut off, which leaves a file of whole
 * members that warcio and every other WARC reader accept.
 *
 * A file shorter than the index says (cut short by a copy or restore that stopped part way, or a
 * disk that lost its tail) is left as it is and said once (`note`, `shortFiles`): the records
 * before the cut are still read, each one only when it reads back whole with its digest (P8);
 * the copies past it are as good as deleted, so their pages are asked again when needed, and
 * an identical answer is stored again in full rather than as a revisit of one (#stillThere).
 * No file that exists when the archive opens is ever written to again (each process writes
 * files of its own, #newFile), so nothing is appended after a hole; a whole copy of the file
 * put back from a backup later is read as before.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../clock.js";
import { NorError } from "../../errors.js";
import type { IdSource } from "../../ids.js";
import type { ArchivePort } from "../../net/types.js";
import { MAX_BODY_BYTES } from "../../policy/constants.js";
import type { Db } from "../db.js";
import type { GroupCommit } from "../group-commit.js";
import { madeHere, newHolderId } from "../holder.js";
import {
  type Capture,
  captureUrlAndTime,
  copiesPast,
  fromRow,
  indexedEnd,
  insertCaptures,
  lastIndexedFile,
  latestCapture,
  recentCopy,
} from "./captures.js";
import { isDamaged, noteCaptureDamaged } from "./damaged.js";
import { sha256Digest } from "./digest.js";
import { archiveInTheWay, DEFAULT_ROTATE_BYTES, fileName, listWarcFiles, seqOf } from "./files.js";
import { MemberReader } from "./members.js";
import { readCapture } from "./read.js";
import {
  type Exchange,
  type Original,
  requestRecord,
  responseRecord,
  warcDate,
  warcinfoRecord,
} from "./records.js";
import { storeIdentity, storeUrn } from "./store-identity.js";

export interface WarcArchiveOptions {
  /** WARC-Date of the warcinfo record and the files' names (a record's date is its fetch time). */
  clock: Clock;
  /** WARC-Record-IDs. */
  ids: IdSource;
  /** Start a new file once this many bytes are written (default 1 GB). */
  rotateBytes?: number;
  db: Db;
  /**
   * The journal's group commit over `db`: the capture rows of a batch join its transactions
   * instead of committing alone (one fsync fewer a batch). Still inserted only after their
   * records are on disk, and a write still resolves only once its row is committed.
   */
  group?: GroupCommit;
  /**
   * Told, once each while opening, what the operator should know: a file cut short (the
   * copies it no longer holds are asked again when needed). `nor night` and `nor discover`
   * say it, once a command (a night's workers leave it to the process that started them).
   */
  note?: (text: string) => void;
}

/** A file that holds fewer bytes than the index names in it (see the head of this file). */
export interface ShortFile {
  file: string;
  /** Its size on disk. */
  size: number;
  /** The end of the last record the index names in it. */
  indexedEnd: number;
  /** Stored copies (response or revisit records) the index names past `size`. */
  copiesLost: number;
}

interface Pending {
  ex: Exchange;
  /** Called once its records are durable and its row is queued (or committed, without a group). */
  resolve(kept: Kept): void;
  reject(err: unknown): void;
}

/** An exchange's records on disk; `indexed` settles once its capture row is committed. */
export interface Kept {
  indexed: Promise<void>;
}

/** One exchange's two records and its capture row, before its place in a file is known. */
interface Built {
  rec: Uint8Array;
  req: Uint8Array;
  capture: Capture;
}

/** Exchanges per batch: 32 capture rows × 22 columns stay far under any parameter limit. */
const MAX_BATCH = 32;

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
  readonly #group: GroupCommit | undefined;
  readonly #clock: Clock;
  readonly #ids: IdSource;
  readonly #rotateBytes: number;
  #current: Current | undefined;
  #seq: number;
  /** Writes waiting for the next batch; one batch at a time, records appended whole, in order. */
  #pending: Pending[] = [];
  #draining: Promise<void> | undefined;
  /** Capture rows queued in the group commit and not yet committed (close() waits for them). */
  readonly #indexing = new Set<Promise<void>>();
  #closed = false;
  /** Bytes cut off the last file on open (a record half-written by a killed process). */
  recoveredBytes = 0;
  /** Files found shorter than the index says on open: left as they are, never written to. */
  readonly shortFiles: ShortFile[] = [];
  readonly #note: ((text: string) => void) | undefined;
  /** This store's id (store-identity.ts): the files it starts say so in their warcinfo. */
  readonly #store: string;

  private constructor(dir: string, opts: WarcArchiveOptions, seq: number, store: string) {
    this.dir = dir;
    this.#store = store;
    this.#db = opts.db;
    this.#group = opts.group;
    this.#clock = opts.clock;
    this.#ids = opts.ids;
    this.#rotateBytes = opts.rotateBytes ?? DEFAULT_ROTATE_BYTES;
    this.#seq = seq;
    this.#note = opts.note;
  }

  /**
   * `dir` is the archive directory itself (DIR/archive, see archiveDir()). Several processes
   * may share it (`nor night` workers, `nor discover`): each writes files of its own, claimed
   * with a `.writer` file naming its process, and a file is repaired on open only when no live
   * process is writing it.
   */
  static async open(dir: string, opts: WarcArchiveOptions): Promise<WarcArchive> {
    if (opts.group !== undefined && opts.group.db !== opts.db) {
      // The index is read through `db`: its rows must be written to that same store.
      throw new NorError("E_INTERNAL", "archive: the group commit given is over another store");
    }
    if (opts.rotateBytes !== undefined && !(opts.rotateBytes > 0)) {
      throw new NorError(
        "E_CONFIG",
        `archive rotateBytes must be positive, not ${opts.rotateBytes}`,
      );
    }
    ensureArchiveDir(dir);
    ensureRoom(dir);
    const files = listWarcFiles(dir);
    const last = files.at(-1);
    // Numbers go on from the last file on the disk or in the index, whichever is later: a file
    // lost from the disk keeps its name, which a new file started in the same second would
    // otherwise take while the index still names records in it.
    const indexed = await lastIndexedFile(opts.db);
    const seq = Math.max(last ? seqOf(last) : 0, indexed ? seqOf(indexed) : 0);
    const store = await storeIdentity(opts.db, opts.ids, opts.clock);
    const archive = new WarcArchive(dir, opts, seq, store);
    for (const name of files) {
      const writer = readWriter(dir, name);
      if (writer !== undefined && writer !== "dead") continue; // a live process's file
      archive.recoveredBytes += await archive.#recover(name);
      if (writer === "dead") rmSync(writerPath(dir, name), { force: true });
    }
    return archive;
  }

  /**
   * Cuts a record torn by a kill off the end of a file, past its last indexed record, and
   * removes a file that holds nothing else but its warcinfo; returns the bytes cut. A file
   * shorter than its indexed records is not touched: said, and read as far as it goes. Whole
   * records past the index are left as they are (pastIndex).
   */
  async #recover(name: string): Promise<number> {
    const path = join(this.dir, name);
    const size = (await stat(path)).size;
    const end = await indexedEnd(this.#db, name);
    if (end > size) {
      const short = {
        file: name,
        size,
        indexedEnd: end,
        copiesLost: await copiesPast(this.#db, name, size),
      };
      this.shortFiles.push(short);
      this.#note?.(shortFileNote(path, short));
      return 0;
    }
    if (end === size) return 0;
    // Only what is torn is cut: whole records past this index are never cut or removed, whoever
    // wrote them (another store's night, this store's before a backup of its index was put
    // back, a process whose rows are still being committed or never were), nor data that does
    // not read (damaged: `nor archive verify` says where).
    if ((await pastIndex(path, size, end)) !== "torn") return 0;
    if (end === 0) {
      // Nothing indexed in it: a warcinfo and perhaps a torn record. Nothing to keep.
      rmSync(path, { force: true });
      return size;
    }
    let fh: FileHandle;
    try {
      fh = await open(path, "r+");
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      // Its torn tail cannot be cut off: a file another user owns, or a read-only one.
      if (isPermission(code))
        throw new NorError(
          "E_CONFIG",
          `the archive file ${path} is not writable (${code}): its torn last record must be cut off; give the user running nor (uid ${uid()}) write access to it`,
          { cause },
        );
      throw cause;
    }
    try {
      await fh.truncate(end);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    return size - end;
  }

  /**
   * A new file of this process's own: the name is claimed by creating its `.writer` first. Its
   * name carries the start of its warcinfo record's id, so two machines whose files start in
   * the same second with the same number (a data directory each, one shared index) never give
   * them one name (files.ts).
   */
  async #newFile(): Promise<Current> {
    const uuid = this.#ids.uuid().toLowerCase();
    const token = uuid.slice(0, 8);
    const holder = newHolderId(() => token);
    for (let i = 0; i < 1000; i++) {
      this.#seq += 1;
      const name = fileName(this.#seq, this.#clock.now(), token);
      try {
        writeFileSync(writerPath(this.dir, name), `${process.pid}\n${hostname()}\n${holder}\n`, {
          flag: "wx",
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw err;
      }
      const path = join(this.dir, name);
      if (existsSync(path)) continue; // written earlier by a finished process
      let fh: FileHandle | undefined;
      try {
        fh = await open(path, "wx");
        const info = await warcinfoRecord(
          name,
          this.#clock.now(),
          `<urn:uuid:${uuid}>`,
          storeUrn(this.#store),
        );
        await fh.write(info, 0, info.length, 0);
        await fh.datasync();
        return { name, fh, size: info.length, hasRecords: false };
      } catch (err) {
        // Not started (a full or failing disk): no row names the file, so it goes, handle
        // closed here (not by the garbage collector), then its claim. The next write tries anew.
        if (fh) {
          await fh.close().catch(() => {});
          removeQuietly(path);
        }
        removeQuietly(writerPath(this.dir, name));
        throw err;
      }
    }
    throw new NorError("E_ARCHIVE", `${this.dir}: no free WARC file name after 1000 tries`);
  }

  /**
   * Resolves once the exchange's records are on disk (fdatasync) and its capture row is
   * committed, in that order (P8). Writes that arrive while a batch is being made durable wait
   * and go together into the next one: their records appended with one pwritev and one
   * fdatasync, their rows inserted in one statement, so a busy night pays one sync of each kind
   * per batch, not per answer. Nothing resolves before its own bytes and row are durable.
   */
  async write(exchange: Exchange): Promise<void> {
    await (await this.writeQueued(exchange)).indexed;
  }

  /**
   * As write(), but resolves once the records are on disk and the capture row is queued in the
   * group commit, before that row is committed: `indexed` settles when it is. A write queued to
   * the same group commit after this resolves (the journal's completion of the request) commits
   * in the row's transaction or a later one, never before it (the group commit keeps the order
   * writes were queued in), so the row and the completion share one fsync. Without a group
   * commit the row is committed before this resolves.
   */
  writeQueued(exchange: Exchange): Promise<Kept> {
    if (this.#closed) return Promise.reject(new NorError("E_ARCHIVE", "archive is closed"));
    return new Promise<Kept>((resolve, reject) => {
      this.#pending.push({ ex: exchange, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        await this.#writeBatch(this.#pending.splice(0, MAX_BATCH));
      }
    } finally {
      this.#draining = undefined;
    }
  }

  async #writeBatch(batch: Pending[]): Promise<void> {
    const planned: { p: Pending; capture: Capture }[] = [];
    const settled = new Set<Pending>();
    let cur: Current | undefined;
    let parts: Uint8Array[] = [];
    let start = 0;
    let startHadRecords = false;
    const flush = async (): Promise<void> => {
      if (!cur || parts.length === 0) return;
      // One positioned write of the batch's records (pwritev): they are adjacent members.
      await writeAllAt(cur.fh, parts, start);
      // Durable before indexed: a row must never point at bytes a crash could lose.
      await cur.fh.datasync();
      parts = [];
    };
    try {
      for (const p of batch) {
        let built: Built;
        try {
          built = await this.#build(p.ex);
        } catch (err) {
          settled.add(p);
          p.reject(err);
          continue;
        }
        const len = built.rec.length + built.req.length;
        const now = this.#current;
        // A file is closed when it rotates: what was appended to it is made durable first.
        if (now && now === cur && now.hasRecords && now.size + len > this.#rotateBytes) {
          await flush();
        }
        const f = await this.#fileFor(len);
        if (f !== cur) {
          cur = f;
          start = f.size;
          startHadRecords = f.hasRecords;
        }
        built.capture.file = f.name;
        built.capture.offset = f.size;
        built.capture.requestOffset = f.size + built.rec.length;
        parts.push(built.rec, built.req);
        f.size += len;
        f.hasRecords = true;
        planned.push({ p, capture: built.capture });
      }
      await flush();
    } catch (err) {
      // Nothing of this batch is indexed: its bytes in the current file are overwritten by the
      // next batch (a rotated file's are cut off when it is next opened, past its last row).
      if (cur && cur === this.#current) {
        cur.size = start;
        cur.hasRecords = startHadRecords;
      }
      for (const p of batch) if (!settled.has(p)) p.reject(err);
      return;
    }
    if (planned.length === 0) return;
    // Queued, not awaited, when there is a group commit: the rows commit with the writes queued
    // after them (the requests' completions), and the next batch is built meanwhile.
    const indexed = insertCaptures(
      this.#db,
      planned.map((x) => x.capture),
      this.#group,
    );
    this.#indexing.add(indexed);
    const settle = () => void this.#indexing.delete(indexed);
    indexed.then(settle, settle);
    if (this.#group === undefined) {
      try {
        await indexed;
      } catch (err) {
        for (const x of planned) x.p.reject(err);
        return;
      }
    }
    for (const x of planned) x.p.resolve({ indexed });
  }

  /** One exchange's records and capture row (its place in a file is filled in by the batch). */
  async #build(ex: Exchange): Promise<Built> {
    const url = ex.response.url;
    const body = ex.response.body;
    const digest = sha256Digest(body);
    // The copy tonight's conditional request was built from, when this answer is the same
    // payload (a page sent again whole): an original as good as the latest, without asking the
    // index again; for a page (2xx), none when the index had no copy of it a moment ago (a new
    // page: a capture of another kind there, a 404 or a POST's answer, would rarely be the same
    // bytes; an error page sent again night after night is looked up, as it often is the same).
    // Else the URL's latest capture, as always.
    const hint = ex.request.method === "GET" ? recentCopy(this.#db, url) : undefined;
    const newPage = hint === null && ex.response.status >= 200 && ex.response.status < 300;
    let prior: Capture | undefined;
    if (body.length > 0 && !newPage)
      prior = hint?.payloadDigest === digest ? hint : await latestCapture(this.#db, url);
    const found = prior?.payloadDigest === digest ? await this.#originalOf(prior) : undefined;
    // The index's digest is the digest of the bytes that were fsynced: the original is not
    // read back here. A revisit must still point at a payload that is there: one whose file
    // was deleted or cut short, or that a reader found damaged (damaged.ts), would make this
    // answer unrecoverable too, so the body is then stored again in full.
    const original = found && (await this.#stillThere(found.at)) ? found : undefined;

    const responseId = this.#recordId();
    const requestId = this.#recordId();
    const rec = await responseRecord(ex, responseId, digest, original?.warc);
    const req = await requestRecord(ex, requestId, responseId);

    const h = ex.response.headers;
    const capture: Capture = {
      recordId: responseId,
      url,
      fetchedAt: ex.fetchedAt,
      file: "",
      offset: 0,
      length: rec.length,
      requestOffset: 0,
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
    if (ex.night !== undefined) capture.night = ex.night;
    if (original) capture.refersTo = original.at;
    return { rec, req, capture };
  }

  /** A WARC-Record-ID: a `urn:uuid:` URN in angle brackets (WARC 1.1 §5.2). */
  #recordId(): string {
    return `<urn:uuid:${this.#ids.uuid()}>`;
  }

  /** The original's bytes are on disk (its file holds them whole) and no read found them damaged. */
  async #stillThere(at: NonNullable<Capture["refersTo"]>): Promise<boolean> {
    if (isDamaged(this.dir, at)) return false;
    // Asked of the file system at once (a local directory): a stat through the thread pool
    // cost a revisit more than its record's gzip.
    try {
      return statSync(join(this.dir, at.file)).size >= at.offset + at.length;
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
      const row = await captureUrlAndTime(this.#db, c.refersTo.recordId);
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
    if (cur) {
      // Let go for good, even when no new file can be started: never written to again.
      this.#current = undefined;
      await this.#release(cur);
    }
    this.#current = await this.#newFile();
    return this.#current;
  }

  /**
   * The body stored for one exchange (P8): an answer received in full is rebuilt from here
   * instead of being asked again. Undefined when it is not indexed or does not read back whole.
   */
  async bodyOf(q: {
    url: string;
    method: string;
    fetchedAt: number;
  }): Promise<Uint8Array | undefined> {
    const row = await this.#db
      .selectFrom("captures")
      .selectAll()
      .where("url", "=", q.url)
      .where("method", "=", q.method)
      .where("fetched_at", "=", new Date(q.fetchedAt).toISOString())
      .orderBy("offset", "desc")
      .executeTakeFirst();
    if (!row) return undefined;
    const capture = fromRow(row);
    try {
      const stored = await readCapture(this.dir, capture);
      if (sha256Digest(stored.body) === capture.payloadDigest) return stored.body;
    } catch {
      // unreadable: as damaged as a wrong digest
    }
    noteCaptureDamaged(this.dir, capture);
    return undefined;
  }

  async #release(cur: Current): Promise<void> {
    await cur.fh.close();
    rmSync(writerPath(this.dir, cur.name), { force: true });
  }

  /** Name of the file being written (for tests and `nor archive`). */
  get currentFile(): string | undefined {
    return this.#current?.name;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#draining) await this.#draining;
    await Promise.allSettled([...this.#indexing]);
    if (this.#current) await this.#release(this.#current);
    this.#current = undefined;
  }
}

/** What the operator is told of a file cut short: which, by how much, and what follows. */
export function shortFileNote(path: string, s: Omit<ShortFile, "file">): string {
  const lost =
    s.copiesLost === 0
      ? "no stored copy is lost (only request records lie past its end)"
      : `the ${s.copiesLost === 1 ? "stored copy" : `${s.copiesLost} stored copies`} past byte ${s.size} cannot be read back and ${s.copiesLost === 1 ? "is" : "are"} asked for again when needed (P8)`;
  return (
    `${path} is ${s.indexedEnd - s.size} bytes short: the index names records up to byte ${s.indexedEnd} but the file has ${s.size} bytes; ` +
    `${lost}; the whole records before the cut stay in use and new records go to a new file. ` +
    "If a backup holds the whole file, put it back (`nor archive verify` checks it)"
  );
}

/**
 * What lies past byte `end` (the end of the last indexed record) of an archive file: "torn" when
 * it is only a record cut short at the end of the file (a kill while it was written), zeros to
 * the end (a write a power loss cut), or nothing but the file's warcinfo (`end` 0); "whole" when
 * a whole record lies there (a gzip member that reads, its CRC and length checked: members.ts),
 * anywhere after a torn one too; "damaged" when what lies there does not read and is not zeros,
 * or the file cannot be read.
 */
async function pastIndex(
  path: string,
  size: number,
  end: number,
): Promise<"torn" | "whole" | "damaged"> {
  let fh: FileHandle;
  try {
    fh = await open(path, "r");
  } catch {
    return "damaged";
  }
  try {
    const reader = new MemberReader(fh, size);
    let pos = end;
    let first = await reader.readAt(pos);
    // A file's own warcinfo is no record of the index's: what follows it is looked at.
    if (end === 0 && first.ok && first.record.headers.get("warc-type") === "warcinfo") {
      pos = first.end;
      if (pos >= size) return "torn";
      first = await reader.readAt(pos);
    }
    if (first.ok) return "whole";
    if (!first.eof) return (await reader.zerosFrom(pos)) ? "torn" : "damaged";
    // Cut short at the end of the file, as a torn record is: unless a whole record follows
    // (what looked like its end was damage inside a file that goes on), it is torn.
    let next = await reader.nextStart(pos + 1);
    for (let i = 0; i < 10_000 && next !== undefined; i++) {
      if ((await reader.readAt(next)).ok) return "whole";
      next = await reader.nextStart(next + 1);
    }
    return "torn";
  } finally {
    await fh.close();
  }
}

/** pwritev until every byte is written (a regular file rarely takes less than all at once). */
async function writeAllAt(fh: FileHandle, parts: Uint8Array[], at: number): Promise<void> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const { bytesWritten } = await fh.writev(parts, at);
  if (bytesWritten === total) return;
  let rest = Buffer.concat(parts).subarray(bytesWritten);
  let pos = at + bytesWritten;
  while (rest.length > 0) {
    const r = await fh.write(rest, 0, rest.length, pos);
    rest = rest.subarray(r.bytesWritten);
    pos += r.bytesWritten;
  }
}

/** Removes a file if it can; a failure here must not hide the error being reported. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // left behind: a later open repairs a file no row names, and a dead claim is let go
  }
}

function writerPath(dir: string, name: string): string {
  return join(dir, `${name}.writer`);
}

/** Who writes a file: undefined when nobody does, "dead" when its process is gone (this host). */
export function readWriter(dir: string, name: string): "live" | "dead" | undefined {
  let text: string;
  try {
    text = readFileSync(writerPath(dir, name), "utf8");
  } catch {
    return undefined;
  }
  const [pidText, host, holder] = text.split("\n");
  const pid = Number(pidText);
  if (host !== hostname()) return "live"; // another machine's: only it may repair it
  if (!Number.isInteger(pid) || pid <= 0) return "dead";
  // Our pid but not a holder this process made: a killed earlier run that had the same pid
  // (containers).
  if (pid === process.pid) return madeHere(holder ?? "") ? "live" : "dead";
  try {
    process.kill(pid, 0);
    return "live";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? "live" : "dead";
  }
}

/** An error the operator fixes by giving nor the right to write (not a failing disk). */
function isPermission(code: string | undefined): code is "EACCES" | "EPERM" | "EROFS" {
  return code === "EACCES" || code === "EPERM" || code === "EROFS";
}

function uid(): string {
  return process.getuid ? String(process.getuid()) : "?";
}

/** The archive directory nor may not write in: configuration, exit 2 (like a file there). */
function notWritable(dir: string, code: string, cause: unknown): NorError {
  return new NorError(
    "E_CONFIG",
    `the archive directory ${dir} is not writable (${code}): the stored copies (P8) are written there; give the user running nor (uid ${uid()}) write access to it, or run nor as its owner`,
    { cause },
  );
}

/**
 * The archive's directory made if need be, and writable by this process: every write goes to
 * a new file in it, so a directory this process may not write (made by another user,
 * read-only, immutable) stops the command before any request, not after each answer has come
 * (its copy lost, the request asked again). A file in its place waits for a person (exit 2).
 */
export function ensureArchiveDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    // A file where the archive's directory goes (or above it) waits for a person: exit 2.
    if (code === "EEXIST" || code === "ENOTDIR")
      throw new NorError("E_CONFIG", archiveInTheWay(dir), { cause });
    if (isPermission(code)) throw notWritable(dir, code, cause);
    const why = `cannot make the archive directory ${dir}: ${code ?? String(cause)}`;
    throw new NorError("E_ARCHIVE", why, { cause });
  }
  // Every write goes to a new file in it (#newFile): a directory this process may not
  // write (made by another user, read-only, immutable) stops the command here, before any
  // request, not after each answer has come (its copy lost, the request asked again).
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (isPermission(code)) throw notWritable(dir, code, cause);
    throw new NorError("E_ARCHIVE", `cannot use the archive directory ${dir}: ${code}`, {
      cause,
    });
  }
}

/**
 * Room on the archive's file system for at least this much (twice the largest body a page may
 * have, P14) when a night or discovery opens it: a full disk is said before the first request,
 * not found once answers come that cannot be kept (each then asked again after a restart).
 */
export const MIN_ARCHIVE_ROOM_BYTES = 2 * MAX_BODY_BYTES;

/** Refuses (exit 2) an archive whose file system has less than MIN_ARCHIVE_ROOM_BYTES free. */
export function ensureRoom(
  dir: string,
  statfs: (path: string) => { bavail: number; bfree: number; bsize: number } = statfsSync,
  root = process.getuid?.() === 0,
): void {
  let free: number;
  try {
    const st = statfs(dir);
    // Root may write the blocks kept for it too (what df shows as used but root can fill).
    free = (root ? st.bfree : st.bavail) * st.bsize;
  } catch {
    return; // a file system that cannot say: the writes will tell
  }
  if (free >= MIN_ARCHIVE_ROOM_BYTES) return;
  const mib = (n: number) => `${Math.floor(n / (1024 * 1024))} MiB`;
  throw new NorError(
    "E_CONFIG",
    `the archive's file system has ${mib(free)} free at ${dir}; a night needs at least ${mib(MIN_ARCHIVE_ROOM_BYTES)} to keep the copies it reads (P8): make room there first`,
  );
}
