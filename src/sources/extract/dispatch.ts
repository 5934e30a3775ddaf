/**
 * "Records from this response" by the way in (P6), over whichever readers are given: the
 * extractors themselves are imported by the caller, so a night loads only those its catalog's
 * ways need (src/night/lazy-reader.ts; docs/benchmarks.md "A night's memory") and `extractWay`
 * (index.ts) all of them. Only broken configuration or a bug throws; the night records a
 * throw as `extract-error`. A page nested too deeply to parse (cheerio-load.ts) is no throw: its
 * outcome is no records, with the note saying why.
 */
import { NorError } from "../../errors.js";
import { noteLine } from "../../policy/shown-text.js";
import type { apiSpec, downloadSpec } from "../catalog/schema.js";
import type { WayIn } from "../catalog/types.js";
import type { Platform } from "../platforms/types.js";
import type { Extraction, ReadContext } from "../record.js";
import type { extractApi } from "./api.js";
import type { extractDownload } from "./download.js";
import type { extractFeed } from "./feed.js";
import { refusedForNesting } from "./nesting.js";
import type { extractPage } from "./page.js";

/** The generic reader for each access (a form's result page is read as a page). */
export interface GenericReaders {
  feed: typeof extractFeed;
  api: typeof extractApi;
  download: typeof extractDownload;
  page: typeof extractPage;
}

/**
 * The schemas (zod) of an api way's field map and a download way's columns, checked as they
 * are read: loaded only with those readers, so a night of feeds and pages never loads zod.
 */
export interface WaySpecs {
  apiSpec: typeof apiSpec;
  downloadSpec: typeof downloadSpec;
}

/** The presets by name, and the generic readers, as far as they are loaded. */
export interface ExtractParts {
  getPlatform(name: string): Platform | undefined;
  readers: Partial<GenericReaders>;
  /** Loaded with the api and download readers. */
  specs?: WaySpecs;
}

function config(way: WayIn, what: string): never {
  throw new NorError("E_CONFIG", `${way.access} way ${way.url} has no ${what}`);
}

function loaded<T>(reader: T | undefined, way: WayIn): T {
  if (reader === undefined)
    throw new NorError("E_INTERNAL", `no ${way.access} reader loaded for ${way.url}`);
  return reader;
}

export function extractWith(
  parts: ExtractParts,
  way: WayIn,
  body: Uint8Array,
  url: string,
  /** The answer's Content-Type: its charset decides how the bytes are read (decode.ts). */
  contentType?: string,
): Extraction {
  let e: Extraction;
  try {
    e = read(parts, way, body, url, contentType);
  } catch (err) {
    // A page nested too deeply to parse in good time, whichever reader parsed it (a preset's
    // too): no records, and the note saying why (nesting.ts; P13, P14).
    e = refusedForNesting(err);
  }
  return noted(titled(e));
}

/**
 * The note as one clean line (policy/shown-text.ts, noteLine): a reader may build it from a
 * site's words (an API's error message), which reach a terminal (`nor status`), the log and
 * the source's page.
 */
function noted(e: Extraction): Extraction {
  if (e.note === undefined) return e;
  const note = noteLine(e.note);
  return note === e.note ? e : { ...e, note };
}

/**
 * Without the records whose title shows as nothing: every reader skips an item without a
 * title, but a title made only of characters that are not shown (controls, noncharacters:
 * policy/shown-text.ts, which makeRecord applies) was still a title to it, and became a record
 * the directory would list with an empty link.
 */
function titled(e: Extraction): Extraction {
  if (!e.records.some((r) => r.title === "")) return e;
  return { ...e, records: e.records.filter((r) => r.title !== "") };
}

function read(
  parts: ExtractParts,
  way: WayIn,
  body: Uint8Array,
  url: string,
  contentType: string | undefined,
): Extraction {
  // Every reader gets the same two things: the charset, and the government's zone.
  const ctx: ReadContext = { contentType, zone: way.timezone };
  if (way.platform !== undefined) {
    const p = parts.getPlatform(way.platform);
    if (!p) throw new NorError("E_CONFIG", `unknown platform "${way.platform}" for ${way.url}`);
    return p.extract(body, url, ctx);
  }
  const r = parts.readers;
  switch (way.access) {
    case "feed":
      return loaded(r.feed, way)(body, url, ctx);
    case "api":
      return loaded(r.api, way)(
        body,
        url,
        loaded(parts.specs, way).apiSpec.parse(way.api ?? config(way, "api field mapping")),
        ctx,
      );
    case "download":
      return loaded(r.download, way)(
        body,
        url,
        loaded(parts.specs, way).downloadSpec.parse(
          way.download ?? config(way, "download column mapping"),
        ),
        ctx,
      );
    case "page":
    case "form":
      // A form's result page is read like any list page, with the way's recipe.
      return loaded(r.page, way)(body, url, way.extract ?? config(way, "extract recipe"), ctx);
  }
}
