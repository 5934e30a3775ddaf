/**
 * The night's WayReader, with only the readers its catalog's ways need loaded: the presets
 * (and with them the HTML parser) only for a catalog that names a platform, the feed parser
 * only for feeds, the HTML parser only for pages and forms, the CSV and spreadsheet readers
 * only for downloads, the schemas (zod) of api field maps and download columns only for those
 * ways. Each is several MB of a night's resident memory (docs/benchmarks.md "A night's
 * memory"); test/cli/lazy-load.test.ts says which a night of feeds loads. The catalog is fixed
 * for the night, so every way it will read is known here.
 */
import type { WayIn } from "../sources/catalog/types.js";
import type { GenericReaders } from "../sources/extract/dispatch.js";
import { isGenericForm, type WayReader } from "./reader.js";
import { type ReaderParts, wayReaderOf } from "./way-reader-of.js";

export async function loadWayReader(
  sources: Iterable<WayIn & { alternates: readonly WayIn[] }>,
): Promise<WayReader> {
  let platforms = false;
  let forms = false;
  const access = new Set<keyof GenericReaders>();
  for (const s of sources) {
    for (const way of [s, ...s.alternates]) {
      if (way.platform !== undefined) {
        platforms = true;
        continue;
      }
      forms ||= isGenericForm(way);
      access.add(way.access === "form" ? "page" : way.access);
    }
  }
  const readers: Partial<GenericReaders> = {};
  const parts: ReaderParts = { getPlatform: () => undefined, readers };
  await Promise.all([
    platforms &&
      import("../sources/platforms/index.js").then((m) => {
        parts.getPlatform = m.getPlatform;
      }),
    forms &&
      import("./form-way.js").then((m) => {
        parts.nextFormPage = m.nextFormPage;
      }),
    access.has("feed") &&
      import("../sources/extract/feed.js").then((m) => {
        readers.feed = m.extractFeed;
      }),
    (access.has("api") || access.has("download")) &&
      import("../sources/catalog/schema.js").then((m) => {
        parts.specs = { apiSpec: m.apiSpec, downloadSpec: m.downloadSpec };
      }),
    access.has("api") &&
      import("../sources/extract/api.js").then((m) => {
        readers.api = m.extractApi;
      }),
    access.has("download") &&
      import("../sources/extract/download.js").then((m) => {
        readers.download = m.extractDownload;
      }),
    access.has("page") &&
      import("../sources/extract/page.js").then((m) => {
        readers.page = m.extractPage;
      }),
  ]);
  return wayReaderOf(parts);
}
