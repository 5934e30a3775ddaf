import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { writeVillageCatalog } from "./catalogs.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * The mark a `nor night` leaves of the night it runs (src/night/night-runners.ts) goes with it
 * when it is stopped as `nor start`, systemd or `timeout` stop it: by a signal. A process of its
 * own, since the signal is the point.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-runners-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a night's mark of the night it runs", () => {
  it.each([1, 2])(
    "P11: is taken away when the night (%i process) is stopped by SIGTERM, the signal passed to its workers; each still ends by it",
    async (workers) => {
      buildCli();
      // A feed that never answers: the night is under way, waiting on it, when it is stopped.
      const held: { end(): void }[] = [];
      const server = createServer((req, res) => {
        if (req.url === "/robots.txt") {
          res.writeHead(404).end();
          return;
        }
        held.push(res);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      try {
        const { port } = server.address() as AddressInfo;
        const catalog = join(dir, "c.yaml");
        writeVillageCatalog(catalog, "Stop", {
          "stop-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
        });
        const data = join(dir, `data-${workers}`);
        const env: NodeJS.ProcessEnv = { ...process.env };
        delete env["NOR_DATABASE_URL"];
        const night = spawn(
          process.execPath,
          [
            join(ROOT, "bin", "nor.js"),
            ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
            ...["--allow-private-addresses", "--gap-ms", "0", "--workers", String(workers)],
          ],
          { cwd: ROOT, env, stdio: ["ignore", "ignore", "ignore"] },
        );
        const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
          night.once("exit", (code, signal) => r({ code, signal })),
        );
        const marks = () =>
          existsSync(join(data, RUNNERS_DIR)) ? readdirSync(join(data, RUNNERS_DIR)) : [];
        // Bounded: until the feed was asked for (the mark is written before that), 60 s at most.
        for (let i = 0; i < 600 && held.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(held.length).toBe(1);
        // Each process of the night marks it: the workers start a moment after the first.
        for (let i = 0; i < 600 && marks().length < workers; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const pids = marks().map((m) => Number(/_(\d+)_[^_]+\.json$/.exec(m)?.[1]));
        expect(pids).toHaveLength(workers);
        night.kill("SIGTERM");
        expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
        const alive = (pid: number) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        };
        for (let i = 0; i < 300 && pids.some(alive); i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(pids.filter(alive)).toEqual([]);
        expect(marks()).toEqual([]);
      } finally {
        for (const res of held) res.end();
        await new Promise((r) => server.close(r));
      }
    },
  );
});
