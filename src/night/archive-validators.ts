/**
 * P8 + P12 from the private copy: the validators to send come from the WARC archive's index
 * (the latest capture that holds a body), and a 304 is answered from the stored copy, so the
 * night never asks a site again just to get back what it already has. Because the archive is
 * written before a source's outcome is committed, a crash in between loses nothing: on the
 * resumed night the 304 is re-read from the archive and its records are stored then.
 */

import { latestCapture, validatorsFor } from "../store/archive/captures.js";
import { readCapture } from "../store/archive/read.js";
import type { Db } from "../store/db.js";
import type { StoredCopy, ValidatorStore } from "./reader.js";

export class ArchiveValidators implements ValidatorStore {
  readonly #db: Db;
  readonly #dir: string;

  constructor(db: Db, archiveDir: string) {
    this.#db = db;
    this.#dir = archiveDir;
  }

  get(url: string): Promise<{ etag?: string; lastModified?: string } | undefined> {
    return validatorsFor(this.#db, url);
  }

  async storedCopy(url: string): Promise<StoredCopy | undefined> {
    const capture = await latestCapture(this.#db, url, { withBody: true });
    if (!capture) return undefined;
    const stored = await readCapture(this.#dir, capture);
    const copy: StoredCopy = { url: stored.url, body: stored.body };
    const type = stored.headers["content-type"];
    if (type !== undefined) copy.contentType = type;
    return copy;
  }
}
