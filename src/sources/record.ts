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
  /**
   * ISO 8601; a time the page writes without a zone is in its government's zone (catalog
   * `timezone`, default America/New_York). Absent when the list gives none.
   */
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
  /**
   * The reader cannot tell which records the page means (P6: never fewer records silently):
   * the list it expects is not there as it knows it, or several lists claim to be it. Set
   * only with no records; the night stores it as `extract-error` with this reason.
   */
  unreadable?: string;
  /**
   * The answer is not of the way's kind at all (a feed's address answering a page for people,
   * an api or a download answering something that is not JSON, CSV or XLSX): the way does not
   * work, where an empty feed or list does. Set only with no records (P4: the next way in is
   * then tried).
   */
  notThisWay?: true;
}

/** What a reader needs to know about an answer besides its bytes. */
export interface ReadContext {
  /** The answer's Content-Type header (its charset decides how the bytes are read). */
  contentType?: string | undefined;
  /**
   * IANA zone of the government whose records these are (catalog `timezone`): a time the
   * page writes without a zone is read there. Default America/New_York.
   */
  zone?: string | undefined;
}

/** An extraction that cannot read the page, with the reason. */
export function unreadable(reason: string): Extraction {
  return { records: [], unreadable: reason };
}
