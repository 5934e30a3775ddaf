import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runNorAsync } from "../cli/run-nor.js";

/**
 * `nor night` as a separate process, asynchronously: the fleet's servers live in this test
 * process, so a blocking spawnSync would stop them from answering. Bounded at 60 s.
 */
export async function nightCli(
  catalog: string,
  data: string,
  night: string,
  extra: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const args = ["night", "--catalog", catalog, "--data", data, "--night", night, ...extra];
  args.push("--allow-private-addresses", "--gap-ms", "50", "--concurrency", "4");
  const r = await runNorAsync(args);
  return { code: r.code, stderr: r.stderr };
}

/** A one-government catalog file from source entries written as YAML lines. */
export function writeCatalog(dir: string, sources: string[][]): string {
  const file = join(dir, "catalog.yaml");
  const lines = [
    "governments:",
    "  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }",
    "sources:",
  ];
  for (const s of sources) lines.push(...s.map((l, i) => (i === 0 ? `  - ${l}` : `    ${l}`)));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

export const rss = (origin: string, n: number, prefix = "agenda") =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>${origin}/</link><description>d</description>${Array.from(
    { length: n },
    (_, k) => k + 1,
  )
    .map(
      (i) =>
        `<item><title>Item ${prefix} ${i}</title><link>${origin}/${prefix}/${i}</link><guid>${origin}/${prefix}/${i}</guid><pubDate>Tue, 0${i} Nov 2026 18:00:00 GMT</pubDate></item>`,
    )
    .join("")}</channel></rss>`;
