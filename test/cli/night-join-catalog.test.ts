import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * A second `nor night` on a store whose night another live process runs joins it only with
 * the same catalog files: with others it would retire the running night's sources under that
 * process and finish the night while it still works. Refused (exit 2) before it changes
 * anything. The first process is a process of its own (it must be alive while the second opens).
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-join-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a second nor night beside a running one", () => {
  it("P11, P13: with another catalog, or the same ids with another way in, is refused (exit 2) saying what differs, the running night's sources kept and the night left open", async () => {
    buildCli();
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      if (req.url === "/robots.txt") res.writeHead(404).end();
      else held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.8", r));
    const origin = `http://127.0.0.8:${(server.address() as AddressInfo).port}`;
    try {
      const first = join(dir, "first.yaml");
      writeVillageCatalog(first, "Join", {
        "join-a": `records: agendas, access: feed, url: "${origin}/a.rss"`,
        "join-b": `records: minutes, access: feed, url: "${origin}/b.rss"`,
      });
      // The same ids at the same addresses, but another way in for join-b: a change the
      // running night would meet midway, refused as well, and said.
      const moved = join(dir, "moved.yaml");
      writeVillageCatalog(moved, "Join", {
        "join-b": `records: minutes, access: feed, url: "${origin}/b.rss", alternates: [{ access: feed, url: "${origin}/b2.rss" }]`,
        "join-a": `records: agendas, access: feed, url: "${origin}/a.rss"`,
      });
      const other = join(dir, "other.yaml");
      writeVillageCatalog(other, "Join", {
        "join-c": `records: bids, access: feed, url: "${origin}/c.rss"`,
      });
      const data = join(dir, "data");
      const args = (catalog: string, ...more: string[]) => [
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", "0", ...more],
      ];
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env["NOR_DATABASE_URL"];
      const running = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args(first)], {
        cwd: ROOT,
        env,
        stdio: ["ignore", "ignore", "ignore"],
      });
      const ended = new Promise<void>((r) => running.once("exit", () => r()));
      try {
        // Bounded: until the running night's first feed is on the wire, 60 s at most.
        for (let i = 0; i < 600 && held.length === 0; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(held.length).toBe(1);
        const r = await runMain(args(other, "--allow-retire"));
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(
          `is being run on ${data} by another process, with other sources than ${other} lists (join-c is not among the sources in use; join-a is in use but not listed; join-b is in use but not listed)`,
        );
        const m = await runMain(args(moved));
        expect(m.code, m.stderr).toBe(2);
        expect(m.stderr).toContain(
          `other sources than ${moved} lists (join-b has another alternates)`,
        );
        const db = new Database(join(data, "nor.db"), { readonly: true });
        try {
          const sources = db.prepare("select id, retired_at from sources order by id").all() as {
            id: string;
            retired_at: string | null;
          }[];
          const entry = db.prepare("select entry from sources where id = 'join-b'").get() as {
            entry: string;
          };
          expect(entry.entry).not.toContain("b2.rss");
          expect(sources).toEqual([
            { id: "join-a", retired_at: null },
            { id: "join-b", retired_at: null },
          ]);
          const night = db
            .prepare("select finished_at from nights where night = '2026-11-05'")
            .get() as { finished_at: string | null };
          expect(night.finished_at).toBeNull();
        } finally {
          db.close();
        }
      } finally {
        running.kill("SIGTERM");
        await ended;
      }
    } finally {
      for (const res of held) res.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
