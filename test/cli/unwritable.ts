import { execFileSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const root = process.getuid?.() === 0;

/**
 * Makes `path` unwritable for this process in a way it cannot get round: as root, `chattr +i`
 * (on a file system that has it); as anyone else, its write bits taken away. Returns how to undo
 * it, or undefined where neither works (no chattr, or tmpfs).
 */
export function unwritable(path: string): (() => void) | undefined {
  if (!root) {
    chmodSync(path, 0o555);
    return () => chmodSync(path, 0o755);
  }
  try {
    execFileSync("chattr", ["+i", path], { stdio: "ignore" });
  } catch {
    return undefined; // no chattr, or a file system without the immutable flag (tmpfs)
  }
  return () => execFileSync("chattr", ["-i", path], { stdio: "ignore" });
}

/** A loopback site that answers 404 to everything and counts what it was asked. */
export async function notFoundSite(): Promise<{ server: Server; origin: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.writeHead(404, { "content-type": "text/plain" }).end("no\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, asked };
}
