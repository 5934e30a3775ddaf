/** A record as extracted from a list (P6): never fetched, only noted. */
export type RecordKind =
  | "bids"
  | "agendas"
  | "minutes"
  | "permits"
  | "notices"
  | "meetings"
  | "other";

export interface ExtractedRecord {
  /** Stable: the platform's id, else the absolute link, else a hash of title and date. */
  id: string;
  title: string;
  /** ISO 8601; America/New_York when the page gives no zone. Absent when the list gives none. */
  date?: string;
  /** Absolute URL, never fetched (P6). */
  url?: string;
  kind?: RecordKind | string;
}

/** What an extractor returns for one response. */
export interface Extraction {
  records: ExtractedRecord[];
  /** The link to the next (older) page of the same list, absolute, for backfill (P7). */
  next?: string;
  /** Why there are no records, when the page says so (e.g. "script shell", "No Meetings"). */
  note?: string;
}
