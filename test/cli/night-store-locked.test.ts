import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor night --workers` on SQLite, one worker frozen (SIGSTOP) in the middle of a write: it held
 * the store's write lock, and another process's next write, past SQLite's 5 s busy wait, made
 * that command exit 1 ("database is locked") though the night went on and finished. The frozen
 * writer here is this test's own connection holding `begin immediate` while `nor night` has a
 * request on the wire; it lets go once the night says it waits for it.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-store-locked-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title>
<item><title>Council agenda</title><link>/a/1</link><pubDate>Wed, 04 Nov 2026 12:00:00 GMT</pubDate></item>
</channel></rss>`;

it("P27: a night whose store another process holds locked past SQLite's busy wait waits for it, saying so on stderr, and ends as it would (exit 0), not with 'database is locked'", async () => {
  buildCli();
  const data = join(dir, "data");
  let frozen: Sqlite.Database | undefined;
  const server = createServer((req, res) => {
    if (req.url === "/robots.txt") {
      res.writeHead(404).end();
      return;
    }
    // The request is on the wire: another process takes the store's write lock and freezes.
    if (frozen === undefined) {
      frozen = new Sqlite(join(data, "nor.db"));
      frozen.exec("begin immediate");
    }
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const catalog = writeVillageCatalog(join(dir, "c.yaml"), "Locked", {
    "l-a": `records: agendas, access: feed, url: "${origin}/a.rss"`,
  });
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  const child = spawn(
    process.execPath,
    [
      join(ROOT, "bin", "nor.js"),
      ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
      ...["--allow-private-addresses", "--gap-ms", "0"],
    ],
    { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  let code: number | null | undefined;
  const exited = new Promise<void>((r) =>
    child.once("exit", (c) => {
      code = c;
      r();
    }),
  );
  try {
    // Bounded: until the night says it waits for the lock, or ends; 60 s at most.
    for (let i = 0; i < 600 && code === undefined && !/write lock/.test(stderr); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toMatch(
      /waiting for the store's write lock at .*nor\.db, held by another process/,
    );
    // The frozen process goes on (SIGCONT) and commits.
    frozen?.exec("commit");
    frozen?.close();
    frozen = undefined;
    for (let i = 0; i < 600 && code === undefined; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/database is locked/);
  } finally {
    if (code === undefined) child.kill("SIGKILL");
    await exited;
    frozen?.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
}, 120_000);
