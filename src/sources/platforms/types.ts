/**
 * A platform preset: everything the checker needs to read one vendor's list of records from
 * nothing but `platform: NAME` and `url:` in the catalog (P4, P6).
 * Presets are pure: they build requests and read bodies; the night fetches (src/net).
 */
import type { Extraction, ReadContext } from "../record.js";

export interface PlatformRequest {
  method: "GET" | "POST";
  url: string;
  body?: string;
  contentType?: string;
  accept?: string;
}

export interface Platform {
  name: string;
  /** Which access this preset is (P4 preference: api > download > feed > page/form). */
  access: "api" | "download" | "feed" | "page" | "form";
  /** The first request for a catalog url (e.g. BoardDocs: POST BD-GetMeetingsList; Legistar API: $top/$skip). */
  firstRequest(url: string, now: number): PlatformRequest;
  /**
   * Records from one response; throws only on a bug. A page it cannot read for sure is
   * `unreadable` with the reason (P6: never fewer records silently). `ctx`: the answer's
   * Content-Type (for the one body decoder) and the government's zone (for its times).
   */
  extract(body: Uint8Array, url: string, ctx?: ReadContext): Extraction;
  /** The request for the next (older) page, for backfill (P7), or undefined at the end. */
  nextRequest?(
    prev: PlatformRequest,
    body: Uint8Array,
    extraction: Extraction,
  ): PlatformRequest | undefined;
  /**
   * P5, P7: the older page an earlier night's backfill left off at (`cursor`), asked from
   * tonight's first page (`first`, its answer `body`) with tonight's page state, for a preset
   * whose older pages are postbacks carrying the state of the page they were turned from.
   * Undefined: the cursor is asked as it was kept.
   */
  resumeRequest?(
    cursor: PlatformRequest,
    first: PlatformRequest,
    body: Uint8Array,
    extraction: Extraction,
  ): PlatformRequest | undefined;
}
