/**
 * The operator's password, kept only as a scrypt hash (RFC 7914) with a random salt. The cost
 * parameters travel inside the stored text, so raising them later still verifies old hashes.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/** N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds per check (RFC 7914 §2). */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Long enough for a passphrase, short enough that hashing it is never a denial of service. */
export const MAX_PASSWORD_CHARS = 1024;
export const MIN_PASSWORD_CHARS = 12;

function derive(password: string, salt: Buffer, o: ScryptOptions, len: number): Promise<Buffer> {
  // maxmem above 128·N·r, which node's 32 MiB default leaves no room for at N = 2^15.
  const opts = { ...o, maxmem: 256 * (o.N ?? COST.N) * (o.r ?? COST.r) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, len, opts, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` with salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return [
    "scrypt",
    COST.N,
    COST.r,
    COST.p,
    salt.toString("base64url"),
    key.toString("base64url"),
  ].join("$");
}

/** True only for the password the hash was made from; compares in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_CHARS) return false;
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return false;
  const salt = Buffer.from(parts[4] ?? "", "base64url");
  const expected = Buffer.from(parts[5] ?? "", "base64url");
  if (salt.length === 0 || expected.length === 0) return false;
  const key = await derive(password, salt, { N, r, p }, expected.length);
  return timingSafeEqual(key, expected);
}

/** Why a new password is not accepted, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_CHARS)
    return `the password must be at least ${MIN_PASSWORD_CHARS} characters`;
  if (password.length > MAX_PASSWORD_CHARS)
    return `the password must be at most ${MAX_PASSWORD_CHARS} characters`;
  // Twelve spaces are twelve characters, but not twelve a person would choose; a control
  // character (a stray escape, a bell) is one the sign-in form could never send back.
  if (password.trim().length < MIN_PASSWORD_CHARS)
    return `the password must be at least ${MIN_PASSWORD_CHARS} characters that are not spaces at either end`;
  if (/\p{Cc}/u.test(password)) return "the password must hold no control characters";
  return undefined;
}
