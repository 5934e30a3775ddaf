/**
 * The WayReader with every reader loaded: every preset, every generic extractor, the form's
 * pager (way-reader-of.ts says how a way is read). `nor reparse` and tests use it; a night
 * loads only the readers its catalog needs (lazy-reader.ts).
 */

import { apiSpec, downloadSpec } from "../sources/catalog/schema.js";
import { extractApi } from "../sources/extract/api.js";
import { extractDownload } from "../sources/extract/download.js";
import { extractFeed } from "../sources/extract/feed.js";
import { extractPage } from "../sources/extract/page.js";
import { getPlatform } from "../sources/platforms/index.js";
import { nextFormPage, resumeFormPage } from "./form-way.js";
import type { WayReader } from "./reader.js";
import { wayReaderOf } from "./way-reader-of.js";

export const wayReader: WayReader = wayReaderOf({
  getPlatform,
  readers: { feed: extractFeed, api: extractApi, download: extractDownload, page: extractPage },
  nextFormPage,
  resumeFormPage,
  specs: { apiSpec, downloadSpec },
});
