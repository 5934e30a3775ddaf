// Tables owned by the archive module (P8, P12). Times are ISO 8601 UTC text (see index.ts).

/**
 * One row per response or revisit record in DIR/archive/*.warc.gz: where it lies (file,
 * offset, length of its gzip member) and what it says, so the latest capture of a URL and
 * its validators are found without opening a WARC file.
 */
export interface CapturesTable {
  /** The WARC-Record-ID, `<urn:uuid:…>`. */
  record_id: string;
  url: string;
  /** When the response was read (the fetch's `fetchedAt`), ISO text. */
  fetched_at: string;
  /** File name inside DIR/archive/. */
  file: string;
  /** Byte offset of the record's gzip member in the file, and its compressed length. */
  offset: number;
  length: number;
  /** The request record written with it (WARC-Concurrent-To), when any. */
  request_offset: number | null;
  request_length: number | null;
  record_type: "response" | "revisit";
  method: string;
  status: number;
  mime: string | null;
  /** `sha256:` + base32 of the stored (decoded) payload. */
  payload_digest: string;
  payload_length: number;
  etag: string | null;
  last_modified: string | null;
  source: string | null;
  purpose: string;
  /** Revisits: the original response record holding this payload. */
  refers_to: string | null;
  refers_file: string | null;
  refers_offset: number | null;
  refers_length: number | null;
  /**
   * The night that saved it (`nor night`'s date), when a night's request brought it; null for
   * others (`nor discover`: outside any night) and before migration 038. A copy is a night's own answer
   * (P8: never asked again that night) only when that night saved it.
   */
  night: string | null;
}

/** The store's own name, one row (migration 020): the archive files it starts carry it. */
export interface StoreIdentityTable {
  /** Always 1: one row. */
  one: number;
  id: string;
  created_at: string;
}

/**
 * One row per stored copy `nor archive forget` took out of the index, its WARC file truly lost
 * (migration 035): `nor reparse` reads no older copy of the page as the list as it stands.
 */
export interface ForgottenCopiesTable {
  url: string;
  source: string | null;
  method: string;
  purpose: string;
  status: number;
  /** When the forgotten copy was read, ISO text (as captures.fetched_at). */
  fetched_at: string;
  /** The lost file: the copy's own, or for a revisit in another file, its original's. */
  file: string;
}

export type ArchiveTables = {
  captures: CapturesTable;
  forgotten_copies: ForgottenCopiesTable;
  store_identity: StoreIdentityTable;
};
