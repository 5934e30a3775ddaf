/**
 * A WayReader made of the readers it is given: a way with a `platform` goes to its preset (its
 * own first request, extraction and pager, P5/P7); any other way goes to the generic extractor
 * for its access (feed, api field map, download columns, page recipe), whose `next` link turns
 * pages; a generic form's result pages are turned with the form's own pager. Which readers
 * are loaded is the caller's choice: all of them (way-reader.ts), or those a night's catalog
 * needs (lazy-reader.ts).
 */
import { NorError } from "../errors.js";
import type { WayIn } from "../sources/catalog/types.js";
import { type ExtractParts, extractWith } from "../sources/extract/dispatch.js";
import type { Platform } from "../sources/platforms/types.js";
import type { nextFormPage, resumeFormPage } from "./form-way.js";
import { isGenericForm, type WayReader } from "./reader.js";

export interface ReaderParts extends ExtractParts {
  /** A generic form's pager (form-way.ts); absent when no way is a generic form. */
  nextFormPage?: typeof nextFormPage;
  /** Its backfill's page, turned again from tonight's first result page (form-way.ts). */
  resumeFormPage?: typeof resumeFormPage;
}

export function wayReaderOf(parts: ReaderParts): WayReader {
  const platformOf = (way: WayIn): Platform | undefined => {
    if (way.platform === undefined) return undefined;
    const p = parts.getPlatform(way.platform);
    // The catalog validates platform names; an unknown one here is broken configuration.
    if (!p) throw new NorError("E_CONFIG", `unknown platform "${way.platform}" for ${way.url}`);
    return p;
  };
  return {
    firstRequest(way, now) {
      const p = platformOf(way);
      return p ? p.firstRequest(way.url, now) : { url: way.url };
    },
    extract(way, body, url, contentType) {
      // A preset or the generic reader for its access, as extractWith chooses.
      return extractWith(parts, way, body, url, contentType);
    },
    nextRequest(way, previous, body, extraction, contentType) {
      const p = platformOf(way);
      if (p) {
        const prev = { method: previous.method ?? "GET", ...previous };
        return p.nextRequest?.(prev, body, extraction);
      }
      if (isGenericForm(way)) {
        if (!parts.nextFormPage)
          throw new NorError("E_INTERNAL", `no form reader loaded for ${way.url}`);
        return parts.nextFormPage(way, previous, body, contentType);
      }
      return extraction.next ? { url: extraction.next } : undefined;
    },
    resumeRequest(way, cursor, first, body, extraction, contentType) {
      const p = platformOf(way);
      if (p) {
        const prev = { method: first.method ?? "GET", ...first };
        const at = { method: cursor.method ?? "GET", ...cursor };
        return p.resumeRequest?.(at, prev, body, extraction);
      }
      if (!isGenericForm(way)) return undefined;
      if (!parts.resumeFormPage)
        throw new NorError("E_INTERNAL", `no form reader loaded for ${way.url}`);
      return parts.resumeFormPage(way, cursor, first, body, contentType);
    },
  };
}
