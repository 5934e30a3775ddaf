import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogJsonSchema } from "../../src/sources/catalog/json-schema.js";

describe("docs/catalog.schema.json", () => {
  it("is exactly what the zod schema generates (regenerate: node dist/sources/catalog/json-schema.js)", () => {
    const committed = readFileSync(
      new URL("../../docs/catalog.schema.json", import.meta.url),
      "utf8",
    );
    expect(committed).toBe(catalogJsonSchema());
  });

  it("refuses unknown keys, as the loader does", () => {
    const schema = JSON.parse(catalogJsonSchema());
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.sources.items.additionalProperties).toBe(false);
  });
});
