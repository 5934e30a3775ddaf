/**
 * The key of one full read of a page (P8, P12): what its records are a function of, hashed. The
 * way in (its access, platform, recipe, field map, zone: the catalog's whole entry), the URL
 * that answered (links are made absolute against it), the Content-Type (the charset the body is
 * read in), the body itself, and the readers' version. Two reads with one key show the same
 * records, so a 304 whose stored copy has the key of the page's last full read is counted from
 * that read (`page_reads`) instead of extracted again.
 */
import { createHash } from "node:crypto";
import type { WayIn } from "../sources/catalog/types.js";

/**
 * Raise it with any change to the readers (presets, generic extractors, record ids) that reads
 * an unchanged page differently: every page is then extracted in full again on its next 304.
 */
export const READERS_VERSION = 1;

export function pageKey(
  way: WayIn,
  url: string,
  contentType: string | undefined,
  body: Uint8Array,
): string {
  return createHash("sha256")
    .update(JSON.stringify([READERS_VERSION, way, url, contentType ?? null]))
    .update("\n")
    .update(body)
    .digest("base64url");
}
