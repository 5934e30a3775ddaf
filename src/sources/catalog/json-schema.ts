/**
 * docs/catalog.schema.json is generated from the zod schema, never written by hand, so the
 * published format cannot drift from what `nor catalog check` accepts. A test compares the
 * two; `node dist/sources/catalog/json-schema.js docs/catalog.schema.json` rewrites the file.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { z } from "../../zod.js";
import { catalogFile } from "./schema.js";

/** The JSON Schema text, as committed (2-space indent, trailing newline). */
export function catalogJsonSchema(): string {
  const schema = z.toJSONSchema(catalogFile, { io: "input", unrepresentable: "any" });
  const doc = {
    ...schema,
    $id: "https://newonrecord.com/catalog.schema.json",
    title: "New on Record catalog",
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = process.argv[2] ?? "docs/catalog.schema.json";
  writeFileSync(out, catalogJsonSchema());
  process.stdout.write(`wrote ${out}\n`);
}
