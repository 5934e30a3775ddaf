import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor night` stopped by a signal (as systemd, `nor start` or Ctrl-C stop it) stops in order
 * (src/night/night-runners.ts, run-night.ts `stop`): the request on the wire is cut off and its
 * row completed as the checker's stop (not left in flight for the next process to guess at),
 * no outcome is recorded for the source it cut short, the night stays open, and the process
 * still ends by the signal. A process of its own, since the signal is the point.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-stop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>http://example.org/</link><description>d</description><item><title>Agenda 1</title><link>http://example.org/a/1</link><guid>a-1</guid><pubDate>Tue, 03 Nov 2026 18:00:00 GMT</pubDate></item></channel></rss>`;

interface Row {
  url: string;
  outcome: string | null;
  failure: string | null;
  ended_at: string | null;
  bytes: number | null;
}

describe("a night stopped by a signal", () => {
  it("P27, P15: cuts off the request on the wire and says so in its row, records no outcome for its source, leaves the night open; the resumed night asks that page once more and nothing else again", async () => {
    buildCli();
    const seen: string[] = [];
    const held: ServerResponse[] = [];
    let hold = true;
    const server = createServer((req, res) => {
      const path = req.url ?? "/";
      seen.push(path);
      if (path === "/robots.txt") {
        res.writeHead(404).end();
        return;
      }
      // The second feed is asked and not answered while the first night runs: the stop finds
      // its request on the wire.
      if (path === "/b.rss" && hold) {
        held.push(res);
        return;
      }
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const catalog = join(dir, "c.yaml");
      writeVillageCatalog(catalog, "Stop", {
        "stop-a": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/a.rss"`,
        "stop-b": `records: minutes, access: feed, url: "http://127.0.0.1:${port}/b.rss"`,
      });
      const data = join(dir, "data");
      const args = [
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      ];
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const night = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args], {
        cwd: ROOT,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      night.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        night.once("exit", (code, signal) => r({ code, signal })),
      );
      // Bounded: until the held feed was asked for, 60 s at most.
      for (let i = 0; i < 600 && held.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(held.length).toBe(1);
      night.kill("SIGTERM");
      expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
      expect(stderr).toContain("stopped before its end");
      expect(
        existsSync(join(data, RUNNERS_DIR)) ? readdirSync(join(data, RUNNERS_DIR)) : [],
      ).toEqual([]);

      const read = () => {
        const db = new Database(join(data, "nor.db"), { readonly: true });
        try {
          return {
            rows: db
              .prepare(
                "select url, outcome, failure, ended_at, bytes from request_log where url like '%.rss' order by started_at, id",
              )
              .all() as Row[],
            outcomes: db
              .prepare("select source_id, outcome from night_sources order by source_id")
              .all() as { source_id: string; outcome: string }[],
            finished: (
              db.prepare("select finished_at from nights where night = '2026-11-05'").get() as {
                finished_at: string | null;
              }
            ).finished_at,
          };
        } finally {
          db.close();
        }
      };
      const after = read();
      // The cut-off request's row was completed by the stopping process itself.
      const b = after.rows.filter((r) => r.url.endsWith("/b.rss"));
      expect(b).toHaveLength(1);
      expect(b[0]?.ended_at).not.toBeNull();
      expect(b[0]?.outcome).toBe("interrupted");
      expect(b[0]?.failure).toMatch(/^stopped: the command was stopped \(SIGTERM\)/);
      // Only the source answered in full has its outcome; the night is not finished.
      expect(after.outcomes).toEqual([{ source_id: "stop-a", outcome: "ok" }]);
      expect(after.finished).toBeNull();

      // The night resumed: only the cut-off page is asked again, and answered.
      hold = false;
      const before = seen.length;
      const r = await runMain(args);
      expect(r.code, r.stderr).toBe(0);
      expect(seen.slice(before)).toEqual(["/b.rss"]);
      const resumed = read();
      expect(resumed.outcomes).toEqual([
        { source_id: "stop-a", outcome: "ok" },
        { source_id: "stop-b", outcome: "ok" },
      ]);
      expect(resumed.finished).not.toBeNull();
    } finally {
      for (const res of held) res.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
