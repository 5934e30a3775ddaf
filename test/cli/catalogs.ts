import { writeFileSync } from "node:fs";

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
