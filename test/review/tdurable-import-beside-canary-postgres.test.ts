import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "../cli/catalogs.js";
import { runNorAsync } from "../cli/run-nor.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

/**
 * tdurable (outside tester), PostgreSQL, machines sharing one store with a data directory each
 * (docs/architecture.md). "A catalog is never imported beside a running night when it would
 * change the sources that night runs" (night/catalog-beside-night.ts): on PostgreSQL a night
 * run from another data directory is known only by its lanes' leases (store/admin.ts
 * nightsLiveInStore). But a night holds no lane between giving back the opening lock and
 * claiming its first lanes (src/cli/commands/night.ts releases it before runNight; run-night.ts
 * asks its `--canary` before it claims anything, up to P14's 30 s and more), so `nor catalog
 * import` on the other machine meanwhile finds no night running and changes the night's
 * sources under it. The canary here answers only once the import has been tried.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await factory?.cleanup();
});

describe.skipIf(factory === undefined)(
  "tdurable: an import beside a night asking its canary (PostgreSQL)",
  () => {
    it("P13, P26: nor catalog import from another data directory that would change a running night's sources is refused (exit 2) while that night asks its canary, before its lanes are claimed", async () => {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      if (loc.kind !== "postgres") throw new Error("postgres expected");
      const env = { NOR_DATABASE_URL: loc.url };
      const d = mkdtempSync(join(tmpdir(), "nor-tdurable-canary-"));
      dirs.push(d);
      let canaryAsked: () => void = () => {};
      const asked = new Promise<void>((r) => {
        canaryAsked = r;
      });
      let answerCanary: () => void = () => {};
      const answered = new Promise<void>((r) => {
        answerCanary = r;
      });
      const seen: string[] = [];
      const server: Server = createServer((req, res: ServerResponse) => {
        seen.push(req.url ?? "");
        if (req.url === "/canary") {
          canaryAsked();
          void answered.then(() => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
          return;
        }
        if (req.url === "/robots.txt") return void res.writeHead(404).end();
        res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(
            `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x/</link><description>d</description><item><title>a</title><link>http://x/a</link><guid>a</guid></item></channel></rss>`,
          );
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const first = writeVillageCatalog(join(d, "first.yaml"), "Test", {
          "test-agendas": `records: agendas, access: feed, url: "${origin}/agendas.rss"`,
        });
        // The same source, its way in moved: a change of the sources a night runs.
        const changed = writeVillageCatalog(join(d, "changed.yaml"), "Test", {
          "test-agendas": `records: agendas, access: feed, url: "${origin}/moved.rss"`,
        });
        const a = join(d, "machine-a");
        const b = join(d, "machine-b");
        const night = runNorAsync(
          [
            ...["night", "--catalog", first, "--data", a, "--night", "2026-11-05"],
            ...["--deadline", "10m", "--allow-private-addresses", "--gap-ms", "50"],
            ...["--canary", `${origin}/canary`],
          ],
          { env, timeoutMs: 60_000 },
        );
        await Promise.race([
          asked,
          night.then((r) => {
            throw new Error(`the night ended before asking its canary: ${r.stderr}`);
          }),
        ]);
        // Machine B, its own data directory, the same store: the night is under way.
        const imported = await runNorAsync(["catalog", "import", changed, "--data", b], {
          env,
          timeoutMs: 30_000,
        });
        answerCanary();
        const ran = await night;
        expect(ran.code, ran.stderr).toBe(0);
        expect(imported.code, imported.stdout + imported.stderr).toBe(2);
        expect(imported.stderr).toMatch(/being run/);
        // The night read the page its catalog named, not one moved under it.
        expect(seen).not.toContain("/moved.rss");
      } finally {
        answerCanary();
        await new Promise<void>((r) => server.close(() => r()));
      }
    });
  },
);
