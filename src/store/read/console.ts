/**
 * What the operator console reads and writes of its own (src/store/schema/console.ts), and the
 * small reads its pages need: open flags, a source's marks, and names for ids (the console
 * names things by name). Sessions and the password hash are kept here so that every SQL
 * statement of the web lives under src/store.
 */
import type { Db } from "../db.js";
import { toIso } from "../iso-time.js";
import { type Placeholder, prepared } from "../prepared.js";
import type { MarksTable } from "../schema/night.js";

const OPERATOR_ID = "operator";

export async function storedPasswordHash(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom("console_operator")
    .select("password_hash")
    .where("id", "=", OPERATOR_ID)
    .executeTakeFirst();
  return row?.password_hash;
}

/** Sets (or replaces) the password hash and ends every session signed in with the old one. */
export async function storePasswordHash(db: Db, hash: string, at: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto("console_operator")
      .values({ id: OPERATOR_ID, password_hash: hash, updated_at: toIso(at) })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet({ password_hash: hash, updated_at: toIso(at) }),
      )
      .execute();
    await tx.deleteFrom("console_sessions").execute();
  });
}

export interface SessionRow {
  idHash: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

/** Stores a new session, forgetting the expired ones first. */
export async function insertSession(db: Db, s: SessionRow): Promise<void> {
  await db.deleteFrom("console_sessions").where("expires_at", "<=", toIso(s.createdAt)).execute();
  await db
    .insertInto("console_sessions")
    .values({
      id_hash: s.idHash,
      csrf_token: s.csrfToken,
      created_at: toIso(s.createdAt),
      expires_at: toIso(s.expiresAt),
    })
    .execute();
}

/**
 * A session by its id's hash, live at `now`. Prepared (prepared.ts), so that on SQLite it is
 * read at once, on the store's read-only connection, while the store's own is taken: a write
 * waiting for the write lock another process holds (db.ts waitForLock) keeps no console page
 * from being answered. Every session is committed before its cookie is given, and ended before
 * the answer to a sign-out.
 */
const LIVE_SESSION = prepared((db, $: Placeholder<{ idHash: string; now: string }>) =>
  db
    .selectFrom("console_sessions")
    .select(["csrf_token", "expires_at"])
    .where("id_hash", "=", $("idHash"))
    .where("expires_at", ">", $("now")),
);

export async function liveSession(
  db: Db,
  idHash: string,
  now: number,
): Promise<{ csrfToken: string; expiresAt: number } | undefined> {
  const row = await LIVE_SESSION.first(db, { idHash, now: toIso(now) });
  return row ? { csrfToken: row.csrf_token, expiresAt: Date.parse(row.expires_at) } : undefined;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom("console_sessions").where("id_hash", "=", idHash).execute();
}

export async function openFlagCount(db: Db): Promise<number> {
  const r = await db
    .selectFrom("flags")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("cleared_at", "is", null)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Every mark a person made on a source, newest first (P24). */
export async function marksOf(db: Db, sourceId: string): Promise<MarksTable[]> {
  return db
    .selectFrom("marks")
    .selectAll()
    .where("source_id", "=", sourceId)
    .orderBy("at", "desc")
    .execute();
}

export interface SourceName {
  /** The source's own name, or its kind of records when it has none. */
  name: string;
  governmentName: string;
}

/** Names for source ids, from the catalog (retired rows too: old nights name them). */
export async function sourceNames(
  db: Db,
  ids?: readonly string[],
): Promise<Map<string, SourceName>> {
  const out = new Map<string, SourceName>();
  if (ids?.length === 0) return out;
  let q = db
    .selectFrom("sources as s")
    .innerJoin("governments as g", "g.id", "s.government_id")
    .select(["s.id", "s.name", "s.records", "g.name as government_name"]);
  if (ids) q = q.where("s.id", "in", [...new Set(ids)]);
  for (const r of await q.execute()) {
    out.set(r.id, { name: r.name ?? r.records, governmentName: r.government_name });
  }
  return out;
}

/** How many sources of the night's catalog sit on each of these sites (an owner's rule covers them all). */
export async function sourceCountsBySite(
  db: Db,
  sites: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (sites.length === 0) return out;
  const rows = await db
    .selectFrom("night_catalog")
    .select(["site", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("site", "in", [...new Set(sites)])
    .groupBy("site")
    .execute();
  for (const r of rows) out.set(r.site, Number(r.n));
  return out;
}
