/**
 * Every generated id goes through an IdSource, as every read of the time goes through a Clock:
 * WARC record ids (WARC 1.1 §5.2: globally unique, here `urn:uuid:` URNs, RFC 9562 §4) and the
 * lease holders of the journal are random in production and counted in tests and simulations,
 * so two archives written from the same answers at the same virtual times are equal byte for
 * byte.
 */
import { randomUUID } from "node:crypto";

export interface IdSource {
  /** A fresh UUID, lower-case hex in its 8-4-4-4-12 form. */
  uuid(): string;
}

/** Random version-4 UUIDs (RFC 9562 §5.4) from the platform's CSPRNG. */
export const randomIds: IdSource = { uuid: () => randomUUID() };

/**
 * Deterministic ids for tests and simulations: `00000001-0000-4000-8000-000000000001`, then
 * `00000002-…-000000000002`, and so on: the count in the first and last groups (so a prefix
 * or a suffix of one is as distinct as the whole), the version and variant bits of a v4 UUID.
 */
export class CounterIds implements IdSource {
  #n = 0;

  uuid(): string {
    this.#n += 1;
    const hex = this.#n.toString(16);
    return `${hex.padStart(8, "0").slice(-8)}-0000-4000-8000-${hex.padStart(12, "0")}`;
  }
}
