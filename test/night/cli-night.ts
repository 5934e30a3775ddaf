import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain } from "../cli/cli-capture.js";
import { runNorAsync } from "../cli/run-nor.js";
import type { Fleet } from "../fleet/fleet.js";

function nightArgs(catalog: string, data: string, night: string, extra: string[]): string[] {
  const args = ["night", "--catalog", catalog, "--data", data, "--night", night, ...extra];
  args.push("--allow-private-addresses", "--gap-ms", "50", "--concurrency", "4");
  return args;
}

/**
 * `nor night` run in this process (`main()` with its streams passed in), on a 50 ms gap
 * towards the loopback fleet, whose servers keep answering in this same process.
 */
export async function nightCli(
  catalog: string,
  data: string,
  night: string,
  extra: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const r = await runMain(nightArgs(catalog, data, night, extra));
  return { code: r.code, stderr: r.stderr };
}

/**
 * The same as a separate `node bin/nor.js night` process, for what only processes show: two
 * nights at once on one store (the night lock, the shared journal). Bounded at 60 s.
 */
export async function nightProcess(
  catalog: string,
  data: string,
  night: string,
  extra: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const r = await runNorAsync(nightArgs(catalog, data, night, extra));
  return { code: r.code, stderr: r.stderr };
}

/** One feed source of the one government of writeCatalog, as its YAML lines. */
export function feedEntry(id: string, url: string): string[] {
  return [
    `id: ${id}`,
    "government: village-of-test",
    "records: agendas",
    "access: feed",
    `url: ${url}`,
  ];
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

/**
 * One loopback site per kind, each with `per` feeds (robots.txt 404: allow all) that answer
 * as the kind says: `ok` an RSS list of two items, `refused` 403, `gone` 404; each answer goes
 * out when `answer` sends it (at once unless told otherwise). The catalog of them, written in
 * `dir` (feed `s{i}-f{n}` is site i's feed n).
 */
export async function feedSites(
  fleet: Fleet,
  dir: string,
  kinds: readonly ("ok" | "refused" | "gone")[],
  per: number,
  answer: (send: () => void) => void = (send) => send(),
): Promise<string> {
  const sources: string[][] = [];
  for (const [i, kind] of kinds.entries()) {
    const s = await fleet.server();
    s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    for (let n = 0; n < per; n++) {
      s.route(`/feed/${n}.xml`, (_q, res) =>
        answer(() => {
          if (kind === "ok")
            res
              .writeHead(200, { "content-type": "application/rss+xml" })
              .end(rss(s.origin, 2, `s${i}f${n}`));
          else res.writeHead(kind === "refused" ? 403 : 404).end();
        }),
      );
      sources.push(feedEntry(`s${i}-f${n}`, s.url(`/feed/${n}.xml`)));
    }
  }
  return writeCatalog(dir, sources);
}
