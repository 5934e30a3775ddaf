import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { PARENT_PID_ENV } from "../../src/cli/night-process.js";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { DIED_IN_FLIGHT } from "../../src/policy/admission.js";
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
  status: number | null;
  bytes: number | null;
}

/** A loopback site on its own address (an IP literal is a site of its own, P9). */
async function site(
  host: string,
  answer: (path: string, res: ServerResponse) => void,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => answer(req.url ?? "/", res));
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

describe("a night stopped by a signal", () => {
  it("P27, P15: cuts off the request on the wire and says so in its row, records no outcome for its source, leaves the night open; the resumed night asks that page once more and nothing else again", async () => {
    buildCli();
    const seen: string[] = [];
    const held: ServerResponse[] = [];
    let hold = true;
    const feed = (res: ServerResponse) =>
      res.writeHead(200, { "content-type": "application/rss+xml" }).end(RSS);
    // Three sites, each holding a request of its own when the stop comes: one before its
    // answer's head, one mid-body (its head and 100 bytes sent), one its robots.txt.
    const one = await site("127.0.0.1", (path, res) => {
      seen.push(`one${path}`);
      if (path === "/robots.txt") res.writeHead(404).end();
      else if (path === "/b.rss" && hold) held.push(res);
      else feed(res);
    });
    const two = await site("127.0.0.2", (path, res) => {
      seen.push(`two${path}`);
      if (path === "/robots.txt") res.writeHead(404).end();
      else if (hold) {
        res.writeHead(200, { "content-type": "application/rss+xml" });
        res.write(RSS.slice(0, 100));
        held.push(res);
      } else feed(res);
    });
    const three = await site("127.0.0.3", (path, res) => {
      seen.push(`three${path}`);
      if (path === "/robots.txt" && hold) held.push(res);
      else if (path === "/robots.txt") res.writeHead(404).end();
      else feed(res);
    });
    // And one whose answer's head came, a 503 asking for an hour, its body still coming.
    const four = await site("127.0.0.6", (path, res) => {
      seen.push(`four${path}`);
      if (path === "/robots.txt") res.writeHead(404).end();
      else {
        res.writeHead(503, { "retry-after": "3600", "content-type": "text/plain" });
        res.write("busy");
        held.push(res);
      }
    });
    try {
      const catalog = join(dir, "c.yaml");
      writeVillageCatalog(catalog, "Stop", {
        "stop-a": `records: agendas, access: feed, url: "${one.origin}/a.rss"`,
        "stop-b": `records: minutes, access: feed, url: "${one.origin}/b.rss"`,
        "stop-c": `records: bids, access: feed, url: "${two.origin}/c.rss"`,
        "stop-d": `records: notices, access: feed, url: "${three.origin}/d.rss"`,
        "stop-e": `records: permits, access: feed, url: "${four.origin}/e.rss"`,
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
      // Bounded: until the four held requests were asked for, 60 s at most.
      for (let i = 0; i < 600 && held.length < 4; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(held.length).toBe(4);
      night.kill("SIGTERM");
      expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
      // Said by the command once it had stopped in order (not by the grace's end).
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
                "select url, outcome, failure, ended_at, status, bytes from request_log order by started_at, id",
              )
              .all() as Row[],
            outcomes: db
              .prepare("select source_id, outcome from night_sources order by source_id")
              .all() as { source_id: string; outcome: string }[],
            robots: db.prepare("select origin, state from robots_cache order by origin").all(),
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
      // Every row the stop cut off was completed by the stopping process itself, keeping what
      // the site had sent; none is left in flight.
      const rowOf = (url: string) => after.rows.filter((r) => r.url === url);
      const stoppedRow = {
        outcome: "interrupted",
        failure: expect.stringMatching(/^stopped: the command was stopped \(SIGTERM\)/),
        ended_at: expect.any(String),
      };
      expect(rowOf(`${one.origin}/b.rss`)).toEqual([
        { url: `${one.origin}/b.rss`, ...stoppedRow, status: null, bytes: 0 },
      ]);
      expect(rowOf(`${two.origin}/c.rss`)).toEqual([
        { url: `${two.origin}/c.rss`, ...stoppedRow, status: 200, bytes: 100 },
      ]);
      expect(rowOf(`${three.origin}/robots.txt`)).toEqual([
        { url: `${three.origin}/robots.txt`, ...stoppedRow, status: null, bytes: 0 },
      ]);
      // The 503's head is the site's word even though the stop cut its body: kept on its row.
      expect(rowOf(`${four.origin}/e.rss`)).toEqual([
        { url: `${four.origin}/e.rss`, ...stoppedRow, status: 503, bytes: 4 },
      ]);
      expect(after.rows.filter((r) => r.ended_at === null)).toEqual([]);
      // A robots.txt the stop cut off is not the site's: nothing is kept of it.
      expect(after.robots).toEqual([
        { origin: one.origin, state: "allow-all" },
        { origin: two.origin, state: "allow-all" },
        { origin: four.origin, state: "allow-all" },
      ]);
      // Only the source answered in full has its outcome; the night is not finished.
      expect(after.outcomes).toEqual([{ source_id: "stop-a", outcome: "ok" }]);
      expect(after.finished).toBeNull();

      // The night resumed: only what the stop cut off is asked again, and answered; not the
      // page whose 503 asked for an hour (its head's word held past the stop, P15).
      hold = false;
      const before = seen.length;
      const r = await runMain(args);
      expect(r.code, r.stderr).toBe(0);
      expect(seen.slice(before).sort()).toEqual([
        "one/b.rss",
        "three/d.rss",
        "three/robots.txt",
        "two/c.rss",
      ]);
      const resumed = read();
      expect(resumed.outcomes.map((o) => o.outcome)).toEqual(["ok", "ok", "ok", "ok", "error"]);
      expect(resumed.finished).not.toBeNull();
      // P15: each send the stop cut short was tried again as after a connection closed early,
      // 5 s after the cut (the resumed night started at once), not after the 2 s gap alone.
      const times = new Database(join(data, "nor.db"), { readonly: true });
      try {
        for (const url of [
          `${one.origin}/b.rss`,
          `${two.origin}/c.rss`,
          `${three.origin}/robots.txt`,
        ]) {
          const [cut, again] = times
            .prepare("select started_at, ended_at from request_log where url = ? order by id")
            .all(url) as { started_at: string; ended_at: string }[];
          expect(again, url).toBeDefined();
          expect(
            Date.parse(again?.started_at ?? "") - Date.parse(cut?.ended_at ?? ""),
            url,
          ).toBeGreaterThanOrEqual(5_000);
        }
      } finally {
        times.close();
      }
    } finally {
      for (const res of held) res.destroy();
      for (const s of [one, two, three, four]) await new Promise((r) => s.server.close(r));
    }
  });

  it("P27: a worker whose command was killed (SIGKILL) stops in order as if the command had been stopped: its request on the wire says stopped, and it ends", async () => {
    buildCli();
    const held: ServerResponse[] = [];
    const answer = (path: string, res: ServerResponse) => {
      if (path === "/robots.txt") res.writeHead(404).end();
      else held.push(res);
    };
    // Two sites, one lane each at a time (--concurrency 1): the command and its worker each
    // hold one request when the command is killed.
    const one = await site("127.0.0.4", answer);
    const two = await site("127.0.0.5", answer);
    try {
      const catalog = join(dir, "w.yaml");
      writeVillageCatalog(catalog, "Orphan", {
        "orphan-a": `records: agendas, access: feed, url: "${one.origin}/a.rss"`,
        "orphan-b": `records: minutes, access: feed, url: "${two.origin}/b.rss"`,
      });
      const data = join(dir, "data-orphan");
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const night = spawn(
        process.execPath,
        [
          join(ROOT, "bin", "nor.js"),
          ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
          ...["--allow-private-addresses", "--gap-ms", "0", "--workers", "2", "--concurrency", "1"],
        ],
        { cwd: ROOT, env, stdio: ["ignore", "ignore", "ignore"] },
      );
      const ended = new Promise<void>((r) => night.once("exit", () => r()));
      // Bounded: until both feeds were asked for, 60 s at most.
      for (let i = 0; i < 600 && held.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(held.length).toBe(2);
      const marks = readdirSync(join(data, RUNNERS_DIR));
      const pids = marks.map((m) => Number(/_(\d+)_[^_]+\.json$/.exec(m)?.[1]));
      const worker = pids.find((p) => p !== night.pid);
      expect(worker).toBeDefined();
      night.kill("SIGKILL");
      await ended;
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      // Bounded: the worker notices within a second or so and stops in order; 30 s at most.
      for (let i = 0; i < 300 && alive(worker as number); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(alive(worker as number)).toBe(false);
      const db = new Database(join(data, "nor.db"), { readonly: true });
      try {
        const rows = db
          .prepare("select url, outcome, failure from request_log where url like '%.rss'")
          .all() as { url: string; outcome: string; failure: string | null }[];
        // The worker's request was completed by the worker as stopped; the killed command's
        // is left in flight (kill -9 leaves no time to write), or was found so by the worker
        // before it stopped (a lane it took over) and said to be what is known of it.
        const stoppedRows = rows.filter((r) => r.failure?.startsWith("stopped: "));
        expect(stoppedRows).toHaveLength(1);
        expect(stoppedRows[0]?.failure).toMatch(/^stopped: the command was stopped \(SIGTERM\)/);
        for (const r of rows.filter((x) => x !== stoppedRows[0]))
          expect([r.outcome, r.failure]).toEqual(
            r.outcome === "in-flight" ? ["in-flight", null] : ["interrupted", DIED_IN_FLIGHT],
          );
      } finally {
        db.close();
      }
    } finally {
      for (const res of held) res.destroy();
      for (const s of [one, two]) await new Promise((r) => s.server.close(r));
    }
  });

  it("P27: a night's process whose command was gone before it began (killed between the spawn and its start) does nothing and ends", async () => {
    buildCli();
    const catalog = join(dir, "gone.yaml");
    writeVillageCatalog(catalog, "Gone", {
      "gone-a": `records: agendas, access: feed, url: "http://127.0.0.7:9/a.rss"`,
    });
    const data = join(dir, "data-gone");
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env["NOR_DATABASE_URL"];
    // As nor start or nor night --workers start it, naming a parent that is not its parent
    // (the one that spawned it is gone: it was handed to another).
    env[PARENT_PID_ENV] = String(process.pid + 1_000_000);
    const night = spawn(
      process.execPath,
      [
        join(ROOT, "bin", "nor.js"),
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "ignore"] },
    );
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      night.once("exit", (code, signal) => r({ code, signal })),
    );
    expect(ended).toEqual({ code: null, signal: "SIGTERM" });
    expect(existsSync(data)).toBe(false);
  });
});
