/**
 * P8 + P12 from the private copy: the validators to send come from the WARC archive's index
 * (the latest capture that holds a body), and a 304 is answered from the stored copy, so the
 * night never asks a site again just to get back what it already has. Because the archive is
 * written before a source's outcome is committed, a crash in between loses nothing: on the
 * resumed night the 304 is re-read from the archive and its records are stored then.
 */

import type { StoredCopy, ValidatorStore } from "../../night/reader.js";
import type { Db } from "../db.js";
import { fromRow, latestCapture, validatorsFor } from "./captures.js";
import { noteCaptureDamaged } from "./damaged.js";
import { sha256Digest } from "./digest.js";
import { OpenFiles, readCapture } from "./read.js";

export class ArchiveValidators implements ValidatorStore {
  readonly #db: Db;
  readonly #dir: string;
  /** A night reads many copies from a few files: kept open until `close`. */
  readonly #files = new OpenFiles();

  constructor(db: Db, archiveDir: string) {
    this.#db = db;
    this.#dir = archiveDir;
  }

  /** Closes the files kept open for reading copies back. */
  close(): Promise<void> {
    return this.#files.close();
  }

  get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined> {
    return validatorsFor(this.#db, url);
  }

  async storedSince(url: string, since: number): Promise<StoredCopy | undefined> {
    const row = await this.#db
      .selectFrom("captures")
      .selectAll()
      .where("url", "=", url)
      .where("method", "=", "GET")
      .where("fetched_at", ">=", new Date(since).toISOString())
      .where("status", ">=", 200)
      .where("status", "<", 300)
      .orderBy("fetched_at", "desc")
      .orderBy("offset", "desc")
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    const capture = fromRow(row);
    try {
      const stored = await readCapture(this.#dir, capture, this.#files);
      if (sha256Digest(stored.body) !== capture.payloadDigest) {
        noteCaptureDamaged(this.#dir, capture);
        return undefined;
      }
      const copy: StoredCopy = { url: stored.url, body: stored.body };
      const type = stored.headers["content-type"];
      if (type !== undefined) copy.contentType = type;
      return copy;
    } catch {
      noteCaptureDamaged(this.#dir, capture);
      return undefined; // unreadable: asked again, as if never stored
    }
  }

  async storedCopy(url: string): Promise<StoredCopy | { lost: string } | undefined> {
    // A 304 answers a GET: its copy is the GET's, never a POST's answer at the same URL.
    const capture = await latestCapture(this.#db, url, { withBody: true, method: "GET" });
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
