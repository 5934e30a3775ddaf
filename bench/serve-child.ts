/**
 * The server the web benchmark measures, as a process of its own (the load generator runs in
 * the parent, so the two do not share an event loop).
 *   node dist-bench/bench/serve-child.js nor DIR          — the real `nor serve --data DIR`
 *   node dist-bench/bench/serve-child.js main-thread DIR  — the same app reading on the
 *     event loop (createApp without read pools: how `nor serve` read before), for comparison
 * Prints "… the directory is at URL" once listening.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { main } from "../src/cli/main.js";
import { openStore } from "../src/store/db.js";
import { createApp } from "../src/web/app.js";

const [mode, dir] = process.argv.slice(2);
if (!dir || (mode !== "nor" && mode !== "main-thread")) {
  process.stderr.write("usage: serve-child.js nor|main-thread DIR\n");
  process.exit(2);
}
if (mode === "nor") {
  process.exitCode = await main([
    process.execPath,
    "nor",
    "serve",
    "--data",
    dir,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
  ]);
} else {
  const store = await openStore({ kind: "sqlite", dir }, { create: false });
  const app = createApp({ db: store.db, now: () => Date.now(), console: {} });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
    process.stdout.write(
      `main-thread: the directory is at http://127.0.0.1:${(info as AddressInfo).port}/\n`,
    );
  });
  process.once("SIGTERM", () => {
    server.close();
    void store.close();
  });
}
