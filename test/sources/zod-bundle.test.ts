import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { catalogJsonSchema } from "../../src/sources/catalog/json-schema.js";
import { openApiDocument } from "../../src/web/public/openapi.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * `npm run build` bundles zod's `z` into dist/vendor/zod.js (scripts/bundle-vendor.mjs), and the
 * built engine loads it (src/zod.ts): one file, not the package's 95 modules, at every start of
 * a command that reads a catalog or serves the API. The built schemas must be the package's:
 * the same JSON Schema for the catalog, the same OpenAPI document, the same verdicts. (The
 * catalog's problems as the built loader says them: test/sources/yaml-bundle.test.ts.)
 * dist/ is built once by test/global-build.ts.
 */
const BUNDLE = join(ROOT, "dist", "vendor", "zod.js");
const built = <T>(...path: string[]): Promise<T> =>
  import(pathToFileURL(join(ROOT, "dist", ...path)).href) as Promise<T>;

describe("zod bundled (dist/vendor/zod.js)", () => {
  it("the build bundles the package whole, importing nothing", async () => {
    expect(existsSync(BUNDLE)).toBe(true);
    expect(readFileSync(BUNDLE, "utf8")).not.toMatch(/^import /m);
    const { z: bundled } = (await import(pathToFileURL(BUNDLE).href)) as { z: typeof z };
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(z).sort());
  });

  it("the built catalog schema and API description are the package's, and judge alike", async () => {
    const json = await built<typeof import("../../src/sources/catalog/json-schema.js")>(
      "sources",
      "catalog",
      "json-schema.js",
    );
    expect(json.catalogJsonSchema()).toBe(catalogJsonSchema());
    const api = await built<typeof import("../../src/web/public/openapi.js")>(
      "web",
      "public",
      "openapi.js",
    );
    expect(api.openApiDocument("http://127.0.0.1:8080")).toEqual(
      openApiDocument("http://127.0.0.1:8080"),
    );
    const schema = await built<typeof import("../../src/sources/catalog/schema.js")>(
      "sources",
      "catalog",
      "schema.js",
    );
    const { catalogFile } = await import("../../src/sources/catalog/schema.js");
    for (const input of [
      { governments: [{ id: "a", name: "A", kind: "city" }] },
      { governments: [{ id: "a", name: "A", kind: "nation" }] },
      { sources: [{ id: "s", government: "a", records: "agendas", url: 7 }] },
      { unknown: true },
    ]) {
      const got = schema.catalogFile.safeParse(input);
      const want = catalogFile.safeParse(input);
      expect(got.success).toBe(want.success);
      expect(JSON.parse(JSON.stringify(got.error?.issues ?? got.data))).toEqual(
        JSON.parse(JSON.stringify(want.error?.issues ?? want.data)),
      );
    }
  });
});
