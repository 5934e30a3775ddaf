import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";

/**
 * What the outside testers' findings are proved with: a fleet of loopback sites and a
 * directory for the test file, a real `nor night` run in-process on a chosen date (the gap
 * shortened, as loopback allows), and the night's outcomes as the store keeps them.
 */
export const TESTER_GAP_MS = 50;

export interface TesterWorld {
  fleet: Fleet;
  dir: string;
}

/** The fleet and a directory, made before the file's tests and taken away after them. */
export function testerWorld(prefix: string): TesterWorld {
  const world = {} as TesterWorld;
  beforeAll(async () => {
    world.fleet = await startFleet();
    world.dir = mkdtempSync(join(tmpdir(), prefix));
  }, 60_000);
  afterAll(async () => {
    await world.fleet?.close();
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  });
  return world;
}

/** `nor night` on `date`, which must end 0 (its stderr shown when it does not). */
export async function nightOn(catalog: string, data: string, date: string): Promise<void> {
  const r = await runMain([
    ...["night", "--catalog", catalog, "--data", data, "--night", date],
    ...["--allow-private-addresses", "--gap-ms", String(TESTER_GAP_MS)],
  ]);
  if (r.code !== 0) process.stderr.write(r.stderr);
  expect(r.code).toBe(0);
}

export interface OutcomeRow {
  outcome: string;
  reason: string | null;
  way: string | null;
}

/** Each source's outcome on `date`, by its id. */
export function outcomesOn(data: string, date: string): Record<string, OutcomeRow> {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare("select source_id, outcome, reason, way from night_sources where night = ?")
      .all(date) as (OutcomeRow & { source_id: string })[];
    return Object.fromEntries(rows.map((r) => [r.source_id, r]));
  } finally {
    db.close();
  }
}

/** A catalog of one city and `sources` (YAML lines, each source's first line indented two). */
export function testerCatalog(dir: string, name: string, sources: readonly string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      "governments:",
      "  - { id: city-of-test, name: City of Test, kind: city, county: Franklin }",
      "sources:",
      ...sources,
      "",
    ].join("\n"),
  );
  return file;
}

/** A site's robots.txt that is not there (404: everything allowed). */
export const noRobots = (_q: IncomingMessage, res: ServerResponse): void =>
  void res.writeHead(404).end();

/** A feed of one item, as a small site's RSS answers. */
export const oneItemFeed = (_q: IncomingMessage, res: ServerResponse): void => {
  res
    .writeHead(200, { "content-type": "application/rss+xml" })
    .end(
      '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1/a</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>',
    );
};
