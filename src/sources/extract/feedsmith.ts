/**
 * What the feed reader takes from feedsmith, from one place. `npm run build` bundles it into
 * one file (dist/vendor/feedsmith.js, scripts/bundle-vendor.mjs): loading that costs about
 * 75 ms of CPU less than the package's 135 separate ES modules, at every start of a night that
 * reads feeds (docs/benchmarks.md). Without that file, the package itself (vendored.ts).
 * fast-xml-parser stays outside the bundle, so the parser feedsmith uses is the one
 * feed-stop-nodes.ts patches either way.
 */
import type * as F from "feedsmith";
import { vendored } from "../../vendored.js";

type Vendored = Pick<typeof F, "DetectError" | "parseFeed">;

const feedsmith = await vendored<Vendored>(
  new URL("../../vendor/feedsmith.js", import.meta.url),
  () => import("feedsmith"),
);

export const DetectError: typeof F.DetectError = feedsmith.DetectError;
export const parseFeed: typeof F.parseFeed = feedsmith.parseFeed;
export type AnyFeed<T> = F.AnyFeed<T>;
