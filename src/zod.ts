/**
 * zod's `z`, from one place. `npm run build` bundles it into one file (dist/vendor/zod.js,
 * scripts/bundle-vendor.mjs): loading it costs about 44 ms of CPU, where the package's 95
 * separate ES modules (most of them its locales) cost about 70 ms at every start of a command
 * that reads a catalog or serves the API (docs/benchmarks.md, "How fast a command starts").
 * Without that file, the package itself (vendored.ts). Every other file takes zod's types from
 * "zod" (`import type { z as Zod }`) and `z` from here.
 */
import type * as Z from "zod";
import { vendored } from "./vendored.js";

const zod = await vendored<{ z: typeof Z.z }>(
  new URL("./vendor/zod.js", import.meta.url),
  () => import("zod"),
  ["z"],
);

export const z: typeof Z.z = zod.z;
