/**
 * The operator's signed-in sessions, kept server-side (src/store/read/console.ts) so that
 * signing out, or expiry, really ends a session: a copied cookie is worth nothing once its
 * row is gone. Only a hash of the session id is stored.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Db } from "../../store/db.js";
import {
  deleteSession,
  insertSession,
  liveSession,
  storedPasswordHash,
  storePasswordHash,
} from "../../store/read/console.js";

export { storedPasswordHash, storePasswordHash };

/** A signed-in session lasts 12 hours from sign-in, however busy (no sliding renewal). */
export const SESSION_MS = 12 * 60 * 60 * 1000;

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
    const s: Session = {
      id: randomBytes(32).toString("base64url"),
      csrfToken: randomBytes(32).toString("base64url"),
      expiresAt: now + SESSION_MS,
    };
    await insertSession(this.#db, {
      idHash: this.#hash(s.id),
      csrfToken: s.csrfToken,
      createdAt: now,
      expiresAt: s.expiresAt,
    });
    return s;
  }

  /** The live session for a cookie value, or undefined (unknown, malformed or expired). */
  async find(id: string | undefined, now: number): Promise<Session | undefined> {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const row = await liveSession(this.#db, this.#hash(id), now);
    return row ? { id, ...row } : undefined;
  }

  async end(id: string): Promise<void> {
    await deleteSession(this.#db, this.#hash(id));
  }
}
