import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CATALOG_DIR = fileURLToPath(new URL("../../catalog/", import.meta.url));

/** The catalog shipped with the project: every YAML file in catalog/, in name order. */
export function bundledCatalog(): string[] {
  return readdirSync(CATALOG_DIR)
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .sort()
    .map((f) => join(CATALOG_DIR, f));
}
