import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../cli/run-nor.js";
import { feedEntry, writeCatalog } from "../night/cli-night.js";

/**
 * tdurable (outside tester): P20, P23 across a `kill -9`. When most sites fail to resolve or
 * connect, the night is the checker's own outage: the sources the decision rests on are
 * recorded `checker-offline`, not as their sites' no (test/night/checker-offline.test.ts). But
 * the sources committed before the decision are relabelled only in memory until the night's
 * very end (src/night/run-night.ts: `toRelabel`, written by relabelCheckerOffline after every
 * lane has ended). A night killed between the decision and its end leaves them recorded as the
 * sites' no (robots.txt unavailable: P20's no), and the resumed night, which does not ask them
 * again (they have an outcome), never relabels them: the directory shows a no for sites that
 * said nothing, and their flags ("a no several nights running") count it.
 */
const NIGHT = "2026-11-05";
const REFUSED = 10;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function outcomes(dir: string): Record<string, string> {
  const db = new Database(join(dir, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare("select source_id, outcome from night_sources where night = ?")
      .all(NIGHT) as { source_id: string; outcome: string }[];
    return Object.fromEntries(rows.map((r) => [r.source_id, r.outcome]));
  } finally {
    db.close();
  }
}

describe("tdurable: the checker's own outage, and a kill -9", () => {
  it("P20, P23: a night killed after it judged itself offline, then resumed, records every source its decision rested on as checker-offline, none as its site's no", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-tdurable-offline-"));
    dirs.push(dir);
    const port = await closedPort();
    // One healthy site that holds its answers in the first run (so the night is still under
    // way when it is killed), and answers in the second.
    let hold = true;
    const held: (() => void)[] = [];
    const healthy: Server = createHttpServer((req, res) => {
      const answer = () => {
        if (req.url === "/robots.txt") return void res.writeHead(404).end();
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(
            `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x/</link><description>d</description><item><title>a</title><link>http://x/a</link><guid>a</guid></item></channel></rss>`,
          );
      };
      if (hold) held.push(answer);
      else answer();
    });
    await new Promise<void>((r) => healthy.listen(0, "127.0.0.1", r));
    const healthyPort = (healthy.address() as { port: number }).port;
    const hosts = Array.from({ length: REFUSED }, (_, i) => `clerk.town-${i + 1}.test`);
    const catalog = writeCatalog(dir, [
      feedEntry("healthy", `http://127.0.0.1:${healthyPort}/feed.rss`),
      ...hosts.map((h, i) => feedEntry(`t${i + 1}`, `http://${h}:${port}/feed.rss`)),
    ]);
    const args = [
      ...[join(ROOT, "bin", "nor.js"), "night", "--catalog", catalog, "--data", dir],
      ...["--night", NIGHT, "--allow-private-addresses", "--gap-ms", "50"],
      ...["--concurrency", "2", "--deadline", "10m"],
      ...hosts.flatMap((h, i) => ["--resolve", `${h}:${port}:127.0.0.${231 + i}`]),
    ];
    const env = { ...process.env };
    delete env["NOR_DATABASE_URL"];
    const run = (onLine?: (line: string, p: ChildProcess) => void) =>
      new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
        const p = spawn(process.execPath, args, {
          cwd: ROOT,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let rest = "";
        const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
        const take = (c: Buffer) => {
          out += c.toString();
          rest += c.toString();
          const lines = rest.split("\n");
          rest = lines.pop() ?? "";
          for (const l of lines) onLine?.(l, p);
        };
        p.stdout.on("data", take);
        p.stderr.on("data", take);
        p.on("exit", (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, out });
        });
      });
    try {
      // First run: killed as soon as a source is recorded checker-offline (the decision made),
      // while the healthy site's answer is still held.
      let killed = false;
      const first = await run((line, p) => {
        if (!killed && line.includes('"outcome":"checker-offline"')) {
          killed = true;
          p.kill("SIGKILL");
        }
      });
      expect(killed, first.out).toBe(true);
      expect(first.signal).toBe("SIGKILL");
      // Second run: the same outage (nothing listens for the towns), the healthy site answers.
      hold = false;
      for (const a of held.splice(0)) a();
      const second = await run();
      expect(second.signal, second.out).toBeNull();
      const got = outcomes(dir);
      expect(got["healthy"]).toBe("ok");
      const towns = hosts.map((_, i) => `t${i + 1}`);
      expect(Object.fromEntries(towns.map((t) => [t, got[t]]))).toEqual(
        Object.fromEntries(towns.map((t) => [t, "checker-offline"])),
      );
    } finally {
      for (const a of held.splice(0)) a();
      await new Promise<void>((r) => healthy.close(() => r()));
    }
  }, 150_000);
});
