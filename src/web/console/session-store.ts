/**
 * The operator's password hash and signed-in sessions, in the store (tables of
 * src/store/schema/console.ts). Kept server-side so that signing out, or expiry, really ends
 * a session: a copied cookie is worth nothing once its row is gone.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Db } from "../../store/db.js";
import { toIso } from "../../store/iso-time.js";

const OPERATOR_ID = "operator";
/** A signed-in session lasts 12 hours from sign-in, however busy (no sliding renewal). */
export const SESSION_MS = 12 * 60 * 60 * 1000;

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

export interface Session {
  /** The cookie's value: 32 random bytes, base64url. Never stored as is. */
  id: string;
  csrfToken: string;
  expiresAt: number;
}

export class SessionStore {
  readonly #db: Db;
  readonly #key: string | undefined;

  /** `secret`, when given, keys the hash of session ids kept in the store (HMAC-SHA256). */
  constructor(db: Db, secret?: string) {
    this.#db = db;
    this.#key = secret;
  }

  #hash(id: string): string {
    const h = this.#key ? createHmac("sha256", this.#key) : createHash("sha256");
    return h.update(id).digest("base64url");
  }

  async create(now: number): Promise<Session> {
    await this.#db.deleteFrom("console_sessions").where("expires_at", "<=", toIso(now)).execute();
    const s: Session = {
      id: randomBytes(32).toString("base64url"),
      csrfToken: randomBytes(32).toString("base64url"),
      expiresAt: now + SESSION_MS,
    };
    await this.#db
      .insertInto("console_sessions")
      .values({
        id_hash: this.#hash(s.id),
        csrf_token: s.csrfToken,
        created_at: toIso(now),
        expires_at: toIso(s.expiresAt),
      })
      .execute();
    return s;
  }

  /** The live session for a cookie value, or undefined (unknown, malformed or expired). */
  async find(id: string | undefined, now: number): Promise<Session | undefined> {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const row = await this.#db
      .selectFrom("console_sessions")
      .select(["csrf_token", "expires_at"])
      .where("id_hash", "=", this.#hash(id))
      .where("expires_at", ">", toIso(now))
      .executeTakeFirst();
    if (!row) return undefined;
    return { id, csrfToken: row.csrf_token, expiresAt: Date.parse(row.expires_at) };
  }

  async end(id: string): Promise<void> {
    await this.#db.deleteFrom("console_sessions").where("id_hash", "=", this.#hash(id)).execute();
  }
}
