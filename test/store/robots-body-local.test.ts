import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runMain } from "../cli/cli-capture.js";

/**
 * P16, P8 on SQLite: a robots.txt read's body goes into the journal's stored answer only where
 * another machine may lack the archive's copy (PostgreSQL with a data directory per machine:
 * test/review/tdurable-robots-two-machines-postgres.test.ts). SQLite's store lives in its data
 * directory, beside its archive, which holds the copy: kept there too, it would only grow the
 * request log by each origin's robots.txt every night.
 */
const ROBOTS = "User-agent: *\nDisallow: /private\n";
const dir = mkdtempSync(join(tmpdir(), "nor-robots-local-"));
let server: Server;
let catalog = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/robots.txt")
      return void res.writeHead(200, { "content-type": "text/plain" }).end(ROBOTS);
    res
      .writeHead(200, { "content-type": "application/rss+xml" })
      .end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><title>Agenda</title><link>http://127.0.0.1${req.url}/a</link></item></channel></rss>`,
      );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Robots", {
    "robots-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
  });
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe("a robots.txt answer in the SQLite journal", () => {
  it("P16, P8: its body is the archive's alone on SQLite (the stored answer names it archived, no copy of its bytes)", async () => {
    const r = await runMain([
      "night",
      ...["--catalog", catalog, "--data", join(dir, "data"), "--night", "2026-11-05"],
      ...["--allow-private-addresses", "--gap-ms", "0"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const db = new Database(join(dir, "data", "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare("select url, answer from request_log where url like '%/robots.txt'")
        .all() as { url: string; answer: string | null }[];
      expect(rows.length).toBe(1);
      const answer = JSON.parse(rows[0]?.answer ?? "null") as Record<string, unknown>;
      expect(answer["status"]).toBe(200);
      expect(answer["archived"]).toBe(true);
      expect(answer["robotsBody"]).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
