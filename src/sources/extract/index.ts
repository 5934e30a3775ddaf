/**
 * One entry point for "records from this response" (P6), dispatching by the way in: a
 * platform preset when the way names one, else the generic reader for its access. Only
 * broken configuration or a bug throws; the night records a throw as `extract-error`.
 */
import { NorError } from "../../errors.js";
import { apiSpec, downloadSpec } from "../catalog/schema.js";
import type { WayIn } from "../catalog/types.js";
import { getPlatform } from "../platforms/index.js";
import type { Extraction } from "../record.js";
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
  // Reserved for charset: the decoders sniff BOM and meta, and an HTML answer to a feed is
  // detected from the content itself (a "feed URL" answering HTML is "not a feed").
  _contentType?: string,
): Extraction {
  if (way.platform !== undefined) {
    const p = getPlatform(way.platform);
    if (!p) throw new NorError("E_CONFIG", `unknown platform "${way.platform}" for ${way.url}`);
    return p.extract(body, url);
  }
  switch (way.access) {
    case "feed":
      return extractFeed(body, url);
    case "api":
      return extractApi(body, url, apiSpec.parse(way.api ?? config(way, "api field mapping")));
    case "download":
      return extractDownload(
        body,
        url,
        downloadSpec.parse(way.download ?? config(way, "download column mapping")),
      );
    case "page":
    case "form":
      // A form's result page is read like any list page, with the way's recipe.
      return extractPage(body, url, way.extract ?? config(way, "extract recipe"));
  }
}
