/**
 * What the feed reader takes from feedsmith, from one place. `npm run build` bundles it into
 * one file (dist/vendor/feedsmith.js, scripts/bundle-vendor.mjs): loading that costs about
 * 75 ms of CPU less than the package's 135 separate ES modules, at every start of a night that
 * reads feeds (docs/benchmarks.md). Where that file is not there (the sources run as TypeScript
 * under vitest, a build without the bundling step) the package itself is loaded: the same code,
 * only slower to start. fast-xml-parser stays outside the bundle, so the parser feedsmith uses
 * is the one feed-stop-nodes.ts patches either way.
 */
import type * as F from "feedsmith";

type Vendored = Pick<typeof F, "DetectError" | "parseFeed">;

async function load(): Promise<Vendored> {
  try {
    // A URL, not a specifier: resolved against this file, so it names dist/vendor only when
    // this is dist/sources/extract/feedsmith.js.
    return (await import(new URL("../../vendor/feedsmith.js", import.meta.url).href)) as Vendored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw err;
    return import("feedsmith");
  }
}

const feedsmith = await load();

export const DetectError: typeof F.DetectError = feedsmith.DetectError;
export const parseFeed: typeof F.parseFeed = feedsmith.parseFeed;
export type AnyFeed<T> = F.AnyFeed<T>;
