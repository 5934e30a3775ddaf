import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { nor } from "./cli-capture.js";

/**
 * A catalog file of one village and its sources, as the CLI's tests write them: each source a
 * YAML flow map after its id (`records: agendas, access: feed, url: "…"`).
 */
export function writeVillageCatalog(
  file: string,
  village: string,
  sources: Record<string, string>,
): string {
  const id = `village-of-${village.toLowerCase()}`;
  writeFileSync(
    file,
    [
      "governments:",
      `  - { id: ${id}, name: Village of ${village}, kind: village, county: Franklin }`,
      "sources:",
      ...Object.entries(sources).map(([s, rest]) => `  - { id: ${s}, government: ${id}, ${rest} }`),
      "",
    ].join("\n"),
  );
  return file;
}

/**
 * A data directory (DIR/data, under `dir`) holding the catalog of one village with one source,
 * `sourceId`, on example.gov (www.example.gov), imported by `nor catalog import` as a person would.
 */
export async function oneSourceStore(
  dir: string,
  village: string,
  sourceId: string,
): Promise<string> {
  const data = join(dir, "data");
  const catalog = writeVillageCatalog(join(dir, "catalog.yaml"), village, {
    [sourceId]: 'records: agendas, access: feed, url: "https://www.example.gov/agendas.rss"',
  });
  const r = await nor("catalog", "import", catalog, "--data", data);
  expect(r.code, r.stderr).toBe(0);
  return data;
}
