/**
 * P8 + P12 from the private copy: the validators to send come from the WARC archive's index
 * (the latest capture that holds a body), and a 304 is answered from the stored copy, so the
 * night never asks a site again just to get back what it already has. Because the archive is
 * written before a source's outcome is committed, a crash in between loses nothing: on the
 * resumed night the 304 is re-read from the archive and its records are stored then.
 *
 * One lookup of the index a page: a source's page is asked about up to three times in a row
 * (was it stored tonight, its validators, after a 304 its copy), and all three want the same
 * row, the latest GET capture holding a body. "Stored tonight?" decides whether the page is
 * asked for at all, so it always reads the index (another process may have stored the page
 * since this one last looked: a `--workers` sibling, a `nor night` on another machine, a
 * redirect to this page from another site's lane, `nor discover`); the row it read is then
 * handed on once, to the validators asked for next, and from them to the copy behind the 304
 * that answers them (the copy those validators belong to). Any other question reads the index
 * again, and anything this process archives in between (capturesWritten) drops what was read.
 * So what is sent back is what the index said just before this request (P12), and a page
 * another process stored tonight is never asked for again (P8). The copy itself is still read
 * back and its digest checked at every use (P8).
 */

import { statSync } from "node:fs";
import { join } from "node:path";
import type { CopyFacts, StoredCopy, ValidatorStore } from "../../night/reader.js";
import type { Db } from "../db.js";
import { type Capture, capturesWritten, latestCapture, validatorsOf } from "./captures.js";
import { isCaptureDamaged, noteCaptureDamaged } from "./damaged.js";
import { sha256Digest } from "./digest.js";
import { OpenFiles, readCapture } from "./read.js";

/** URLs whose latest copy is remembered: the pages of the lanes at work, and some to spare. */
const REMEMBERED = 512;

/** The row read, handed on once: from "stored tonight?" to the validators, then to the copy. */
type Remembered = { written: number; capture: Capture | undefined; next: "get" | "copy" };

export class ArchiveValidators implements ValidatorStore {
  readonly #db: Db;
  readonly #dir: string;
  /** A night reads many copies from a few files: kept open until `close`. */
  readonly #files = new OpenFiles();
  /**
   * The latest GET capture with a body by URL as last read, the count of writes it was read
   * at, and the one question it may still answer without reading the index again.
   */
  readonly #latest = new Map<string, Remembered>();

  constructor(db: Db, archiveDir: string) {
    this.#db = db;
    this.#dir = archiveDir;
  }

  /** Closes the files kept open for reading copies back. */
  close(): Promise<void> {
    return this.#files.close();
  }

  async get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined> {
    const capture = await this.#latestCopy(url, "get", "copy");
    // A copy in another data directory's archive (machines sharing one PostgreSQL store, each
    // with its own archive), or in a file cut short, is not one this process can answer a 304
    // from: asked without
    // validators, so the site answers once, in full, not a 304 and then the page (P8, P12).
    if (capture !== undefined && !this.#holds(capture)) return undefined;
    return validatorsOf(capture);
  }

  /** Sizes of this archive's files as last seen (a file only grows while it is written). */
  readonly #sizes = new Map<string, number>();

  /** Whether this archive has, whole, the records `capture`'s copy is read from. */
  #holds(capture: Capture): boolean {
    const parts: [string, number][] = [[capture.file, capture.offset + capture.length]];
    if (capture.refersTo)
      parts.push([capture.refersTo.file, capture.refersTo.offset + capture.refersTo.length]);
    for (const [file, end] of parts) {
      if ((this.#sizes.get(file) ?? -1) >= end) continue;
      let size: number;
      try {
        size = statSync(join(this.#dir, file)).size;
      } catch {
        return false;
      }
      this.#sizes.set(file, size);
      if (size < end) return false;
    }
    return true;
  }

  /**
   * The latest GET capture of `url` holding a body (a 2xx, or a revisit of one), as the index
   * says: the row remembered when it was left for this question (`ask`) and this process has
   * archived nothing since, else read now; then left for the question `then`, if any.
   */
  async #latestCopy(
    url: string,
    ask: Remembered["next"] | undefined,
    then: Remembered["next"] | undefined,
  ): Promise<Capture | undefined> {
    const written = capturesWritten(this.#db);
    const known = this.#latest.get(url);
    this.#latest.delete(url);
    let capture: Capture | undefined;
    if (ask !== undefined && known?.next === ask && known.written === written) {
      capture = known.capture;
    } else {
      capture = await latestCapture(this.#db, url, { withBody: true, method: "GET" });
      // Kept only when nothing was archived while it was read.
      if (capturesWritten(this.#db) !== written) return capture;
    }
    if (then !== undefined) {
      this.#latest.delete(url);
      this.#latest.set(url, { written, capture, next: then });
      if (this.#latest.size > REMEMBERED) {
        const oldest = this.#latest.keys().next().value;
        if (oldest !== undefined) this.#latest.delete(oldest);
      }
    }
    return capture;
  }

  async storedSince(
    url: string,
    since: number,
    until: number,
    night?: string,
  ): Promise<StoredCopy | undefined> {
    // The latest copy when it was stored since then: the latest of those stored since, if any.
    // Always read from the index: it decides whether the page is asked for at all (P8).
    let capture = await this.#latestCopy(url, undefined, "get");
    if (
      night !== undefined &&
      capture !== undefined &&
      capture.night !== night &&
      // The latest stored before tonight: every copy was (none is tonight's by its time, below),
      // so no statement more for a page read on an earlier night, the usual case.
      capture.fetchedAt >= since
    ) {
      // Saved by another night's request (or by none: before migration 038, `nor discover`):
      // not tonight's answer, whatever its time says (a clock that ran ahead on an earlier night
      // stamps it inside tonight's window). Tonight's, if any, is the latest tonight saved.
      capture = await latestCapture(this.#db, url, { withBody: true, method: "GET", night });
    }
    if (capture !== undefined && capture.fetchedAt > until) {
      // Stamped after now: archived by a clock running ahead (a night run with the host's
      // clock days fast, then set right), never tonight, whatever its time says. Tonight's
      // copy, if any, is the latest stored by now (P8, P27: a page is never said read tonight
      // from a copy no request of tonight's brought).
      capture = await latestCapture(this.#db, url, {
        at: until,
        withBody: true,
        method: "GET",
        ...(night !== undefined ? { night } : {}),
      });
    }
    if (capture === undefined || capture.fetchedAt < since) return undefined;
    try {
      const stored = await readCapture(this.#dir, capture, this.#files);
      if (sha256Digest(stored.body) !== capture.payloadDigest) {
        noteCaptureDamaged(this.#dir, capture);
        return undefined;
      }
      const copy: StoredCopy = { url: stored.url, body: stored.body };
      const type = stored.headers["content-type"];
      if (type !== undefined) copy.contentType = type;
      if (stored.setCookies.length > 0) copy.setCookies = stored.setCookies;
      return copy;
    } catch {
      noteCaptureDamaged(this.#dir, capture);
      return undefined; // unreadable: asked again, as if never stored
    }
  }

  async copyFacts(url: string): Promise<CopyFacts | undefined> {
    // The copy the validators just sent belong to (left for "copy"), and left for the read back
    // that follows when its records are to be read after all.
    const capture = await this.#latestCopy(url, "copy", "copy");
    if (capture === undefined || !this.#holds(capture)) return undefined;
    // One a read in this process found damaged is not vouched for by the index: read back.
    if (isCaptureDamaged(this.#dir, capture)) return undefined;
    const facts: CopyFacts = { url: capture.url, payloadDigest: capture.payloadDigest };
    if (capture.mime !== undefined) facts.contentType = capture.mime;
    return facts;
  }

  async storedCopy(url: string): Promise<StoredCopy | { lost: string } | undefined> {
    // A 304 answers a GET: its copy is the GET's, never a POST's answer at the same URL; the
    // one the validators just sent belong to, when they were read here.
    const capture = await this.#latestCopy(url, "copy", undefined);
    if (!capture) return undefined;
    // A copy deleted, cut or corrupted on disk is not a copy we hold (P8): the caller reads
    // the page again instead of ending the night or keeping a 304 with no records behind it.
    let stored: Awaited<ReturnType<typeof readCapture>>;
    try {
      stored = await readCapture(this.#dir, capture, this.#files);
    } catch (err) {
      noteCaptureDamaged(this.#dir, capture);
      return { lost: `${capture.file}@${capture.offset}: ${(err as Error).message}` };
    }
    if (sha256Digest(stored.body) !== capture.payloadDigest) {
      noteCaptureDamaged(this.#dir, capture);
      return { lost: `${capture.file}@${capture.offset}: payload digest does not match` };
    }
    const copy: StoredCopy = { url: stored.url, body: stored.body };
    const type = stored.headers["content-type"];
    if (type !== undefined) copy.contentType = type;
    return copy;
  }
}
