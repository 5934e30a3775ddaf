import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * A worker of `nor night --workers N` runs the sources its command imported (the store's): it
 * never reads the catalog files again, so files changed while the night runs neither stop the
 * worker nor, through it, the whole night (a worker's exit 2 stops every process).
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-worker-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function site(host: string, held: ServerResponse[]) {
  const server = createServer((req, res) => {
    if (req.url === "/robots.txt") res.writeHead(404).end();
    else held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

describe("a worker of a running night", () => {
  it("P9, P11: joins with the store's sources though the files were changed since its command imported them, and works a lane of its own", async () => {
    buildCli();
    const heldA: ServerResponse[] = [];
    const heldB: ServerResponse[] = [];
    const a = await site("127.0.0.12", heldA);
    const b = await site("127.0.0.13", heldB);
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env["NOR_DATABASE_URL"];
    const children: ReturnType<typeof spawn>[] = [];
    try {
      const catalog = join(dir, "c.yaml");
      writeVillageCatalog(catalog, "Worker", {
        "w-a": `records: agendas, access: feed, url: "${a.origin}/a.rss"`,
        "w-b": `records: minutes, access: feed, url: "${b.origin}/b.rss"`,
      });
      const data = join(dir, "data");
      const args = [
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", "0", "--concurrency", "1"],
      ];
      const first = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args], {
        cwd: ROOT,
        env,
        stdio: "ignore",
      });
      children.push(first);
      // Bounded: until the command holds one site's feed on the wire, 60 s at most.
      for (let i = 0; i < 600 && heldA.length + heldB.length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(heldA.length + heldB.length).toBe(1);
      // The files change under the running night (another source, one gone).
      writeVillageCatalog(catalog, "Worker", {
        "w-c": `records: bids, access: feed, url: "${a.origin}/c.rss"`,
      });
      let stderr = "";
      const worker = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args, "--worker"], {
        cwd: ROOT,
        env,
        stdio: ["ignore", "ignore", "pipe"],
      });
      children.push(worker);
      worker.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      let exited: number | null | undefined;
      worker.once("exit", (code) => {
        exited = code;
      });
      // Bounded: until the worker holds the other site's feed, or ends, 60 s at most.
      for (let i = 0; i < 600 && heldA.length + heldB.length < 2 && exited === undefined; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(exited, stderr).toBeUndefined();
      expect(heldA.length + heldB.length).toBe(2);
      expect(stderr).not.toContain("other sources than");
    } finally {
      for (const c of children) c.kill("SIGKILL");
      for (const res of [...heldA, ...heldB]) res.destroy();
      for (const s of [a, b]) await new Promise((r) => s.server.close(r));
    }
  });
});
