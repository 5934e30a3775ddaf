import type { RequestLogEntry, RequestLogPort } from "../net/types.js";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { toIso } from "./iso-time.js";
import { sql } from "./kysely.js";
import { type Placeholder, prepared } from "./prepared.js";
import { fromRow, type NewRequestLogRow, toRow } from "./request-log-row.js";
import { writeTxn } from "./write-txn.js";

/** Which attempts to return. Times are epoch ms on the attempt's start: since ≤ start < until. */
export interface RequestLogFilter {
  since?: number;
  until?: number;
  /** Exact site (registrable host the fetcher spaces requests by). */
  site?: string;
  /** Substring of the URL, ASCII case-insensitive on both dialects. */
  urlContains?: string;
  /** Exact catalog source id. */
  source?: string;
  /** At most this many attempts, earliest first. */
  limit?: number;
}

/** Where a page of the log's answer ended: the last row's start (as stored) and id. */
export interface RequestLogCursor {
  startedAt: string;
  id: number;
}

/** Rows per INSERT in appendMany: 17 columns × 500 stays under SQLite's variable limit. */
const BATCH_ROWS = 500;

/** The columns toRow writes. */
type LoggedRow = Pick<
  NewRequestLogRow,
  | "started_at"
  | "ended_at"
  | "method"
  | "url"
  | "status"
  | "outcome"
  | "failure"
  | "bytes"
  | "site"
  | "origin"
  | "source"
  | "purpose"
  | "attempt"
  | "night"
  | "validators_sent"
  | "validators_received"
  | "evidence"
>;

/** One attempt's row, each column toRow writes (appendMany). */
const INSERT_ROW = prepared((db, $: Placeholder<Required<LoggedRow>>) =>
  db.insertInto("request_log").values({
    started_at: $("started_at"),
    ended_at: $("ended_at"),
    method: $("method"),
    url: $("url"),
    status: $("status"),
    outcome: $("outcome"),
    failure: $("failure"),
    bytes: $("bytes"),
    site: $("site"),
    origin: $("origin"),
    source: $("source"),
    purpose: $("purpose"),
    attempt: $("attempt"),
    night: $("night"),
    validators_sent: $("validators_sent"),
    validators_received: $("validators_received"),
    evidence: $("evidence"),
  }),
);

/**
 * P27: the request log. `append` resolves only once its row is committed (SQLite in WAL with
 * synchronous=FULL, PostgreSQL in autocommit), so the fetcher's "logged before the next attempt
 * starts" holds even if the process is killed right after.
 */
export class SqlRequestLog implements RequestLogPort {
  readonly #db: Db;
  readonly #likeOp: "like" | "ilike";

  constructor(db: Db) {
    this.#db = db;
    // SQLite's LIKE ignores ASCII case already; PostgreSQL needs ILIKE for the same answer.
    this.#likeOp = dialectOf(db) === "postgres" ? "ilike" : "like";
  }

  async append(entry: RequestLogEntry): Promise<void> {
    await this.#db.insertInto("request_log").values(toRow(entry)).execute();
  }

  /**
   * Many attempts in one transaction (imports, tests): all are committed or none. On SQLite each
   * row by one statement prepared once, run on the transaction's connection straight
   * (sqlite-direct.ts): a row costs SQLite's insert alone, where a batch of BATCH_ROWS rows built
   * and compiled by kysely and parsed anew by SQLite each time cost three times the CPU (100,000
   * rows: about 1.4 s against 0.4 s). PostgreSQL: batches, one round trip each.
   */
  async appendMany(entries: readonly RequestLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (dialectOf(this.#db) === "sqlite") {
      await writeTxn(this.#db, async (tx) => {
        for (const e of entries) await INSERT_ROW.run(tx, toRow(e) as Required<LoggedRow>);
      });
      return;
    }
    await this.#db.transaction().execute(async (tx) => {
      for (let i = 0; i < entries.length; i += BATCH_ROWS) {
        const rows = entries.slice(i, i + BATCH_ROWS).map(toRow);
        await tx.insertInto("request_log").values(rows).execute();
      }
    });
  }

  /** Attempts matching every given filter, in order of start time (then of logging). */
  async query(filter: RequestLogFilter = {}): Promise<RequestLogEntry[]> {
    const rows = await this.#select(filter).execute();
    return rows.map(fromRow);
  }

  /**
   * The same answer a page at a time: at most `size` attempts after `after` (the previous
   * page's `next`), and the cursor of the page's last row. Keyset, not OFFSET: every page
   * starts from the index where the last one stopped, so a long download costs each page
   * the same, and the web server answers other requests between pages.
   */
  async queryPage(
    filter: RequestLogFilter,
    size: number,
    after?: RequestLogCursor,
  ): Promise<{ entries: RequestLogEntry[]; next?: RequestLogCursor }> {
    let q = this.#select({ ...filter, limit: size });
    if (after)
      q = q.where((eb) =>
        eb(eb.refTuple("started_at", "id"), ">", eb.tuple(after.startedAt, after.id)),
      );
    const rows = await q.execute();
    const last = rows[rows.length - 1];
    return {
      entries: rows.map(fromRow),
      ...(last ? { next: { startedAt: last.started_at, id: Number(last.id) } } : {}),
    };
  }

  #select(filter: RequestLogFilter) {
    let q = this.#db.selectFrom("request_log").selectAll();
    if (filter.since !== undefined) q = q.where("started_at", ">=", toIso(filter.since));
    if (filter.until !== undefined) q = q.where("started_at", "<", toIso(filter.until));
    if (filter.site !== undefined) q = q.where("site", "=", filter.site);
    if (filter.source !== undefined) q = q.where("source", "=", filter.source);
    if (filter.urlContains !== undefined && filter.urlContains !== "") {
      const like = sql.raw(this.#likeOp);
      const spellings = urlSpellings(filter.urlContains);
      q = q.where((eb) =>
        eb.or(spellings.map((s) => sql<boolean>`url ${like} ${`%${escapeLike(s)}%`} escape '\\'`)),
      );
    }
    q = q.orderBy("started_at", "asc").orderBy("id", "asc");
    if (filter.limit !== undefined) q = q.limit(Math.max(0, Math.floor(filter.limit)));
    return q;
  }
}

/**
 * The ways the log may hold what a person typed (P27: an owner gives the address as their
 * browser shows it, `/public notices/` or `/café/`): as typed, and as the URL parser writes it
 * in a path and in a query (a space, a non-ASCII letter, a control character, `"`, `<`, `>`
 * percent-encoded as UTF-8; in a path also `` ` ``, `{`, `}`; in a query also `'`, and a space
 * as a form writes it, `+`). What is already percent-encoded is left as it is. A whole address
 * (`http://` or `https://`) is also read as the URL parser reads it, as the checker wrote the
 * address it asked: its host in lower case and as DNS spells it (`xn--…`), its default port left
 * out, and without the `#…` a browser shows, which is never sent.
 */
export function urlSpellings(text: string): string[] {
  const encoded = (keep: (c: string) => boolean, space: string) => {
    let out = "";
    for (const c of text) {
      const cp = c.codePointAt(0) ?? 0;
      if (c === " ") out += space;
      else if (cp > 0x20 && cp < 0x7f && keep(c)) out += c;
      else
        for (const b of new TextEncoder().encode(c))
          out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    }
    return out;
  };
  const path = encoded((c) => !'"<>`{}'.includes(c), "%20");
  const query = encoded((c) => !"\"<>'".includes(c), "%20");
  const form = encoded((c) => !"\"<>'".includes(c), "+");
  return [...new Set([text, path, query, form, ...asAddress(text.trim())])];
}

/** A whole http(s) address as the URL parser writes it, without its fragment; none else. */
function asAddress(text: string): string[] {
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return [];
  const url = new URL(text);
  url.hash = "";
  return [url.href];
}

/** `%`, `_` and the escape character itself match literally in the user's substring. */
function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
