import type { CachedRobots, RobotsCachePort } from "../net/types.js";
import type { Db } from "./db.js";
import type { GroupCommit } from "./group-commit.js";
import { fromIso, toIso } from "./iso-time.js";
import { type Placeholder, prepared } from "./prepared.js";
import type { RobotsCacheRow } from "./schema/log.js";
import type { Tx } from "./write-txn.js";

/**
 * P16: the robots.txt of each origin (scheme, host and port), kept so it is read at most once
 * a day and survives a restart. Freshness is the caller's rule (ROBOTS_TTL_MS); this only
 * stores the latest answer per origin.
 */
export class SqlRobotsCache implements RobotsCachePort {
  readonly #db: Db;
  readonly #group: GroupCommit | undefined;

  /** With `group`, an answer is stored in the journal's group commit (one fsync with the writes beside it). */
  constructor(db: Db, group?: GroupCommit) {
    this.#db = db;
    this.#group = group;
  }

  async get(origin: string): Promise<CachedRobots | undefined> {
    const row = await ROBOTS_OF.first(this.#db, { origin });
    return row ? fromRow(row) : undefined;
  }

  /** Replaces whatever was cached for the origin (a newer answer always wins). */
  async put(entry: CachedRobots): Promise<void> {
    const row = toRow(entry);
    const { origin: _origin, ...update } = row;
    const write = (db: Tx) =>
      db
        .insertInto("robots_cache")
        .values(row)
        .onConflict((oc) => oc.column("origin").doUpdateSet(update))
        .execute();
    await (this.#group ? this.#group.run(write) : write(this.#db));
  }
}

/** An origin's cached robots.txt: once per lane, built once. */
const ROBOTS_OF = prepared((db, $: Placeholder<{ origin: string }>) =>
  db
    .selectFrom("robots_cache")
    .select([
      "origin",
      "fetched_at",
      "state",
      "status",
      "body",
      "etag",
      "last_modified",
      "reason",
      "night",
    ])
    .where("origin", "=", $("origin")),
);

function toRow(e: CachedRobots): RobotsCacheRow {
  return {
    origin: e.origin,
    fetched_at: toIso(e.fetchedAt),
    state: e.state,
    status: e.status,
    body: e.body === undefined ? null : robotsBodyWithoutNul(e.body),
    etag: e.etag ?? null,
    last_modified: e.lastModified ?? null,
    reason: e.reason ?? null,
    night: e.night ?? null,
  };
}

/**
 * A NUL in a robots.txt body (a UTF-16 file is full of them) kept as `%00`, not as no-nul.ts's
 * U+FFFD: the text parses to the same groups and rules (NUL and `%` are neither blank, colon,
 * `#`, line end nor token character, and a pattern's NUL is normalised to `%00` anyway, where a
 * U+FFFD would become `%EF%BF%BD` and match other URLs), so the cached copy gives the verdict
 * the fetched one gave (P16, P17).
 */
export function robotsBodyWithoutNul(body: string): string {
  return body.includes("\u0000") ? body.replace(/\u0000/g, "%00") : body;
}

function fromRow(r: RobotsCacheRow): CachedRobots {
  const e: CachedRobots = {
    origin: r.origin,
    fetchedAt: fromIso(r.fetched_at, `robots_cache ${r.origin}`),
    state: r.state,
    status: r.status === null ? null : Number(r.status),
  };
  if (r.body !== null) e.body = r.body;
  if (r.etag !== null) e.etag = r.etag;
  if (r.last_modified !== null) e.lastModified = r.last_modified;
  if (r.reason !== null) e.reason = r.reason;
  if (r.night !== null) e.night = r.night;
  return e;
}
