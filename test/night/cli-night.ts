import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../cli/run-nor.js";

/**
 * `nor night` as a separate process, asynchronously: the fleet's servers live in this test
 * process, so a blocking spawnSync would stop them from answering. Bounded at 60 s.
 */
export function nightCli(
  catalog: string,
  data: string,
  night: string,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const args = [join(ROOT, "bin", "nor.js"), "night", "--catalog", catalog, "--data", data];
    args.push("--night", night, "--allow-private-addresses", "--gap-ms", "50");
    args.push("--concurrency", "4");
    const env = { ...process.env };
    delete env["NOR_DATABASE_URL"];
    const p = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    p.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
    p.on("error", reject);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
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
