/**
 * Tables owned by the operator console (src/web/console). The password is kept only as a
 * scrypt hash; a session is kept only as a hash of its id, so a copy of the store holds no
 * cookie that signs anyone in. Times are ISO 8601 UTC text, as everywhere in the store.
 */
export interface ConsoleOperatorTable {
  /** Always "operator": the console has one person's password (no sign-up). */
  id: string;
  /** `scrypt$N$r$p$salt$hash`, salt and hash base64url (src/web/console/password.ts). */
  password_hash: string;
  updated_at: string;
}

export interface ConsoleSessionsTable {
  /** HMAC-SHA256 of the cookie's random 32-byte id, base64url. */
  id_hash: string;
  /** The synchronizer CSRF token every POST of this session must carry. */
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export type ConsoleTables = {
  console_operator: ConsoleOperatorTable;
  console_sessions: ConsoleSessionsTable;
};
