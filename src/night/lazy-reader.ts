/**
 * The night's WayReader, with only the readers its ways need loaded, each the first time it is
 * needed: the presets (and with them the HTML parser) at the start, for a catalog that names a
 * platform, as is a generic form's pager (both make requests before anything is read); the
 * generic extractors only when an answer of their way is to be read (`ready`): the feed parser
 * for a feed, the HTML parser for a page or a form's results, the CSV and spreadsheet readers
 * for a download, the schemas (zod) of api field maps and download columns for those ways. A
 * night whose pages all come back unchanged (304s, or the same page again, counted from the
 * archive's index) loads none of them. Each is several MB of a night's resident memory and
 * tens of milliseconds of CPU to load (docs/benchmarks.md "A night's memory", "Readers loaded
 * when first read"); test/cli/lazy-load.test.ts says which a night of feeds loads.
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
  for (const s of sources) {
    for (const way of [s, ...s.alternates]) {
      if (way.platform !== undefined) platforms = true;
      else forms ||= isGenericForm(way);
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
        parts.resumeFormPage = m.resumeFormPage;
      }),
  ]);
  const specs = () =>
    import("../sources/catalog/schema.js").then((m) => {
      parts.specs = { apiSpec: m.apiSpec, downloadSpec: m.downloadSpec };
    });
  const load: Record<keyof GenericReaders, () => Promise<unknown>> = {
    feed: () =>
      import("../sources/extract/feed.js").then((m) => {
        readers.feed = m.extractFeed;
      }),
    api: () =>
      Promise.all([
        specs(),
        import("../sources/extract/api.js").then((m) => {
          readers.api = m.extractApi;
        }),
      ]),
    download: () =>
      Promise.all([
        specs(),
        import("../sources/extract/download.js").then((m) => {
          readers.download = m.extractDownload;
        }),
      ]),
    page: () =>
      import("../sources/extract/page.js").then((m) => {
        readers.page = m.extractPage;
      }),
  };
  // One load a reader, shared by every lane that reads such a way, however many ask at once.
  const loading = new Map<keyof GenericReaders, Promise<void>>();
  const reader = wayReaderOf(parts);
  return {
    ...reader,
    ready(way) {
      // A preset reads with what it loaded at the start.
      if (way.platform !== undefined) return Promise.resolve();
      const access = way.access === "form" ? "page" : way.access;
      let done = loading.get(access);
      if (done === undefined) {
        done = load[access]().then(() => undefined);
        loading.set(access, done);
      }
      return done;
    },
  };
}
