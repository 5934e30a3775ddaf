import { createHash } from "node:crypto";

/**
 * Digests as WARC writes them: `sha256:` + RFC 4648 base32 (padded). Why base32 and not hex:
 * it is the form WARC 1.1 §5.8/§5.9 examples use, what Heritrix, wget, Python warcio and the
 * CDX world (pywb, OpenWayback) have always written, and what warcio.js writes when told
 * `base32: true`; CDX `digest` fields keep the same text, so a revisit lookup in any CDX
 * server matches ours byte for byte.
 */
export const DIGEST_OPTS = { algo: "sha-256", prefix: "sha256:", base32: true } as const;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

export function sha256Digest(...parts: Uint8Array[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return `sha256:${base32(h.digest())}`;
}
