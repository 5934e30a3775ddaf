/**
 * The politeness floors and the checker's identity. The public "for site owners" page renders
 * its numbers from these same constants (P2), so page and behaviour cannot drift. No setting
 * may lower a floor; only tests on loopback may shorten the gap (see net/options).
 */
export const PRODUCT_TOKEN = "public-records-check";
/** P1: the exact User-Agent every request carries by default. */
export const DEFAULT_USER_AGENT = "public-records-check/0.1 (+mailto:frankie@outpostagencies.com)";
/** Where site owners write (the site-owner page). */
export const OPERATOR_NAME = "Frankie Cleary";
export const OPERATOR_EMAIL = "frankie@newonrecord.com";

/** P10: end of one request to the start of the next on the same site. */
export const MIN_GAP_MS = 2_000;
/** P14: time to the response headers. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** P14: longest silence while a body is read. */
export const BODY_SILENCE_MS = 30_000;
/**
 * P14: a body must be complete within this long after its headers, however steadily it
 * trickles; past it the attempt is timed-out and not retried (P15).
 */
export const BODY_TOTAL_MS = 30_000;
/** P14: bodies stop at 20 MiB, counted after decompression. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;
/**
 * P5, P14: the largest request body the checker sends (a form's POST, in bytes as sent). A form
 * page's hidden state (an ASP.NET __VIEWSTATE) is posted back as the page gave it, and a page of
 * up to MAX_BODY_BYTES could make it a 20 MB POST to a government site: a longer body is never
 * sent (net/steps/url-check.ts), and the source's outcome says why. Real viewstates are tens to
 * hundreds of kilobytes; a search form's whole POST is rarely more than a few hundred.
 */
export const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;
/** P19: redirects followed in a row. */
export const MAX_REDIRECTS = 5;
/** P15: retries after the first attempt. */
export const MAX_RETRIES = 2;
/** P15: waits before retry 1 and 2 when the server sent no Retry-After. */
export const RETRY_WAITS_MS: readonly [number, number] = [5_000, 20_000];
/** P15: a Retry-After longer than this means no retry tonight. */
export const RETRY_AFTER_MAX_MS = 60_000;
/** P17 / RFC 9309 §2.5: at least 500 KiB of robots.txt is parsed. */
export const ROBOTS_MAX_BYTES = 512 * 1024;
/** P16 / RFC 9309 §2.4: a cached robots.txt is used for at most a day. */
export const ROBOTS_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * P16, P11: each night reads each origin's robots.txt once. A copy read before the night began
 * is read again at the night's first request there, unless it was read less than this long ago
 * (two commands run one after the other ask once: that copy is then the night's, and serves the
 * rest of it). Without it a lane that starts a few minutes
 * earlier in tonight's night than in last night's used last night's copy, not yet a day old, and
 * read the file afresh only the night after: a change its owner made was obeyed two days on, where
 * the site-owners page says the checker sees it within a day.
 */
export const ROBOTS_REREAD_AFTER_MS = 60 * 60 * 1000;
/** P7: older pages read per night while backfilling. */
export const DEFAULT_BACKFILL_PAGES = 3;
/**
 * Older pages in a row that show no records or are gone (P7, P11) before a backfill takes its
 * list to have ended: a list that keeps a "Next" link on empty pages past its end, or whose next
 * page is removed, is not asked every night for ever; one empty month, or one failed answer,
 * does not end it.
 */
export const BACKFILL_MISSES = 3;

/**
 * P7: nights in a row on which an older page got no answer about itself (a time-out, a
 * connection refused or cut, a 5xx after its retries) while page 1 answered, before the
 * backfill gives up on it. Such a night is no miss (the page may well be there: a server that
 * falls over on an old, heavy query one week answers the next), but a page that never answers
 * is not asked every night for ever either: one request a night (three with P15's retries),
 * for at most this many nights, then `nor backfill restart` asks it again.
 */
export const BACKFILL_UNANSWERED_NIGHTS = 10;
/** P25: rechecks on this many nights right after a source is marked not read … */
export const RECHECK_SOON_NIGHTS = 3;
/** … then once every this many nights. */
export const RECHECK_EVERY_NIGHTS = 7;
/**
 * P25: a recheck owed (its weekly night not reached) and reached up to this many nights before
 * the calendar's next weekly night stands for that night: the page is not asked two nights
 * running, and from one weekly ask to the next is 4 to 10 nights, never fewer.
 */
export const RECHECK_OWED_STANDS_NIGHTS = 3;
/**
 * A night's history of its sources (their outcomes before tonight) goes back this many nights:
 * ordering and flags need a few, and a recheck owed (P25) the last RECHECK_EVERY_NIGHTS.
 */
export const HISTORY_NIGHTS = 60;
/** P13: default time limit of a night. */
export const DEFAULT_NIGHT_DEADLINE_MS = 6 * 60 * 60 * 1000;
/**
 * P13: the shortest time limit `nor night` and `nor start` take. A night whose deadline passes
 * before it can ask anything writes off the whole day's night (every source unreached, later
 * runs that day asking nothing): a mistyped `--deadline 1ms` is refused, not run.
 */
export const MIN_NIGHT_DEADLINE_MS = 60 * 1000;
export const DEFAULT_CONCURRENCY = 64;
/**
 * How long a worker's hold on a lane lasts without being renewed; it renews every third of
 * it, so a lane is taken over this long after its worker died on another machine (at once on
 * this machine, where a dead process is seen directly).
 */
export const LANE_LEASE_MS = 60_000;

/**
 * The longest gap an owner's request may set (`nor site --gap`, the console): a night. Longer
 * is a request to be left alone, which `--not-read` records as that.
 */
export const MAX_OWNER_GAP_MS = 24 * 60 * 60 * 1000;

/**
 * P9: the longest a request can hold its site (30 s to headers, 30 s of body, the archive): its
 * lease in the journal; past it another process may take the site (store/journal.ts).
 */
export const REQUEST_LEASE_MS = 120_000;

/**
 * The longest URL the checker asks for, in characters as the URL parser writes it (non-ASCII
 * percent-encoded, as it is requested and stored), whether a catalog gives it or a site does (a
 * next page's link, a redirect's Location). What is fetched is kept in the store keyed by its URL
 * (`page_reads`, `captures`, `validators`), and PostgreSQL refuses a B-tree key of more than
 * 2,704 bytes, which would fail the night's commit; 2,048 also keeps under what servers take
 * (IIS refuses a query string over 2,048 by default, others a request line over 4 or 8 KiB, with
 * 414 or 431) and is the sitemaps protocol's own limit. No record page's address comes near it.
 */
export const MAX_URL_LENGTH = 2048;

/**
 * The longest record id kept as it is, in UTF-8 bytes (a platform's id, or the record's link): a longer one is
 * kept as `l:` and its SHA-256 (record-id.ts), since the store's records are keyed by source and
 * id and PostgreSQL refuses a B-tree key of more than 2,704 bytes.
 */
export const MAX_RECORD_ID_LENGTH = 1024;
