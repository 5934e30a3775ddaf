/**
 * One entry point for "records from this response" (P6), with every reader loaded: a
 * platform preset when the way names one, else the generic reader for its access
 * (dispatch.ts). Only broken configuration or a bug throws; the night records a throw as
 * `extract-error`.
 */
import { apiSpec, downloadSpec } from "../catalog/schema.js";
import type { WayIn } from "../catalog/types.js";
import { getPlatform } from "../platforms/index.js";
import type { Extraction } from "../record.js";
import { extractApi } from "./api.js";
import { type ExtractParts, extractWith } from "./dispatch.js";
import { extractDownload } from "./download.js";
import { extractFeed } from "./feed.js";
import { extractPage } from "./page.js";

const ALL: ExtractParts = {
  getPlatform,
  readers: { feed: extractFeed, api: extractApi, download: extractDownload, page: extractPage },
  specs: { apiSpec, downloadSpec },
};

export function extractWay(
  way: WayIn,
  body: Uint8Array,
  url: string,
  /** The answer's Content-Type: its charset decides how the bytes are read (decode.ts). */
  contentType?: string,
): Extraction {
  return extractWith(ALL, way, body, url, contentType);
}
