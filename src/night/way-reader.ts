/**
 * The WayReader the CLI uses: a way with a `platform` goes to its preset (its own first
 * request, extraction and pager, P5/P7); any other way goes to the generic extractor for its
 * access (feed, api field map, download columns, page recipe), whose `next` link turns pages.
 */
import { NorError } from "../errors.js";
import type { WayIn } from "../sources/catalog/types.js";
import { extractWay } from "../sources/extract/index.js";
import { getPlatform } from "../sources/platforms/index.js";
import type { Platform } from "../sources/platforms/types.js";
import { isGenericForm, nextFormPage } from "./form-way.js";
import type { WayReader } from "./reader.js";

function platformOf(way: WayIn): Platform | undefined {
  if (way.platform === undefined) return undefined;
  const p = getPlatform(way.platform);
  // The catalog validates platform names; an unknown one here is broken configuration.
  if (!p) throw new NorError("E_CONFIG", `unknown platform "${way.platform}" for ${way.url}`);
  return p;
}

export const wayReader: WayReader = {
  firstRequest(way, now) {
    const p = platformOf(way);
    return p ? p.firstRequest(way.url, now) : { url: way.url };
  },
  extract(way, body, url, contentType) {
    const p = platformOf(way);
    // The answer's charset and the government's zone go to whichever reader reads it.
    return p
      ? p.extract(body, url, { contentType, zone: way.timezone })
      : extractWay(way, body, url, contentType);
  },
  nextRequest(way, previous, body, extraction, contentType) {
    const p = platformOf(way);
    if (p) {
      const prev = { method: previous.method ?? "GET", ...previous };
      return p.nextRequest?.(prev, body, extraction);
    }
    if (isGenericForm(way)) return nextFormPage(way, previous, body, contentType);
    return extraction.next ? { url: extraction.next } : undefined;
  },
};
