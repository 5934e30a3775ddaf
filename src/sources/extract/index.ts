/**
 * One entry point for "records from this response" (P6), dispatching by the way in: a
 * platform preset when the way names one, else the generic reader for its access. Only
 * broken configuration or a bug throws; the night records a throw as `extract-error`.
 */
import { NorError } from "../../errors.js";
import { apiSpec, downloadSpec } from "../catalog/schema.js";
import type { WayIn } from "../catalog/types.js";
import { getPlatform } from "../platforms/index.js";
import type { Extraction, ReadContext } from "../record.js";
import { extractApi } from "./api.js";
import { extractDownload } from "./download.js";
import { extractFeed } from "./feed.js";
import { extractPage } from "./page.js";

function config(way: WayIn, what: string): never {
  throw new NorError("E_CONFIG", `${way.access} way ${way.url} has no ${what}`);
}

export function extractWay(
  way: WayIn,
  body: Uint8Array,
  url: string,
  /** The answer's Content-Type: its charset decides how the bytes are read (decode.ts). */
  contentType?: string,
): Extraction {
  // Every reader gets the same two things: the charset, and the government's zone.
  const ctx: ReadContext = { contentType, zone: way.timezone };
  if (way.platform !== undefined) {
    const p = getPlatform(way.platform);
    if (!p) throw new NorError("E_CONFIG", `unknown platform "${way.platform}" for ${way.url}`);
    return p.extract(body, url, ctx);
  }
  switch (way.access) {
    case "feed":
      return extractFeed(body, url, ctx);
    case "api":
      return extractApi(body, url, apiSpec.parse(way.api ?? config(way, "api field mapping")), ctx);
    case "download":
      return extractDownload(
        body,
        url,
        downloadSpec.parse(way.download ?? config(way, "download column mapping")),
        ctx,
      );
    case "page":
    case "form":
      // A form's result page is read like any list page, with the way's recipe.
      return extractPage(body, url, way.extract ?? config(way, "extract recipe"), ctx);
  }
}
