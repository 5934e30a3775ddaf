import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { type NorError, UsageError } from "../../errors.js";
import { DEFAULT_USER_AGENT } from "../../policy/constants.js";
import { lastNightUserAgent } from "../../store/admin.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { storedPasswordHash } from "../../store/read/console.js";
import { openWebReads, type WebReads } from "../../store/read-pool.js";
import { createApp } from "../../web/app.js";
import { answerClientErrors } from "../../web/client-errors.js";
import { answerJobModule } from "../../web/public/answer-job.js";
import { stdout } from "../io.js";
import { listenError } from "../listen-error.js";
import {
  addOperatorNameOption,
  addUserAgentOption,
  operatorNameOption,
  userAgentOption,
} from "../net-options.js";
import { consoleOffText } from "../shell-words.js";
import { saying } from "../store-upgrade.js";
import { addWebOptions, listeningOrigin, type WebCliOptions, webOptions } from "../web-options.js";

interface ServeOptions extends WebCliOptions {
  data?: string;
  userAgent?: string;
  operatorName?: string;
  host: string;
  port: string;
}

/** How long open keep-alive connections get to finish after SIGINT/SIGTERM. */
const DRAIN_MS = 5_000;

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65_535)
    throw new UsageError(
      `--port must be a number from 0 to 65535 (0 picks a free port), not "${text}"`,
    );
  return n;
}

/** `http://127.0.0.1:8080/`, with brackets for an IPv6 address. */
function urlOf(info: AddressInfo): string {
  const host =
    info.family === "IPv6" || info.address.includes(":") ? `[${info.address}]` : info.address;
  return `http://${host}:${info.port}/`;
}

/**
 * `nor serve`: the public directory, its feeds and API, /site-owners and the operator console,
 * over the store the nights write. Binds to 127.0.0.1 unless told otherwise: putting it on the
 * internet is a decision (a reverse proxy with TLS in front, docs/operations.md).
 */
export function register(program: Command): void {
  const cmd = program
    .command("serve")
    .description("Serve the directory (pages, feeds, JSON API, /site-owners, /console) over HTTP")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port to listen on; 0 picks a free one (the URL is printed)", "8080");
  addOperatorNameOption(cmd);
  addUserAgentOption(addWebOptions(cmd)).action(async (opts: ServeOptions) => {
    const port = parsePort(opts.port);
    const userAgent = userAgentOption(opts.userAgent);
    const operatorName = operatorNameOption(opts.operatorName, userAgent);
    const { origin, clientAddress } = webOptions(opts);
    // Read-only use: a missing SQLite store is an error, not an empty directory made silently.
    const loc = storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data });
    const store = await openStore(loc, saying({ create: false }));
    // The pages read off the event loop (worker threads on SQLite): no request waits while
    // another's SQL runs, however slow the console's biggest read.
    let reads: WebReads;
    try {
      reads = await openWebReads(loc, { jobs: answerJobModule() });
    } catch (err) {
      await store.close();
      throw err;
    }
    // Without an operator password nobody could sign in: the console is off, and we say so.
    const consoleOn = (await storedPasswordHash(store.db)) !== undefined;
    // The command that turns it on names the store this server reads (a SQLite directory given
    // relative, or the default ./data, as an absolute path).
    const consoleOff = consoleOffText(loc.kind === "sqlite" ? resolve(loc.dir) : undefined);
    // P1, P2: the site-owners page shows the User-Agent the last night sent; one given here
    // that differs is said, so the two commands can be given the same.
    const sent = await lastNightUserAgent(store.db);
    const given = userAgent ?? DEFAULT_USER_AGENT;
    const uaNote =
      sent !== undefined && sent !== given
        ? `nor serve: the site-owners page shows the User-Agent the last night sent, ${JSON.stringify(sent)}, not ${JSON.stringify(given)}: give \`nor night\` and \`nor serve\` the same --user-agent\n`
        : undefined;
    // Links in feeds come from --origin; without it, from the address we listen on (known once
    // listening), never from a request's Host header.
    let listening = listeningOrigin(opts.host, port);
    // A store a request finds damaged stops the server as it stops any command (exit 1, the
    // store's path and what to do said on stderr: docs/operations.md); the request is answered
    // 503 (app.tsx).
    let damaged: (err: NorError) => void = () => {};
    const app = createApp({
      onStoreDamaged: (err) => damaged(err),
      db: store.db,
      reads,
      now: systemClock.now,
      ...(userAgent !== undefined ? { userAgent } : {}),
      ...(operatorName !== undefined ? { operatorName } : {}),
      origin: () => origin ?? listening,
      console: consoleOn
        ? {
            ...(origin !== undefined ? { origin } : {}),
            ...(clientAddress !== undefined ? { clientAddress } : {}),
          }
        : false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const server = serve({ fetch: app.fetch, hostname: opts.host, port }, (info) => {
          listening = urlOf(info).replace(/\/$/, "");
          stdout().write(`nor serve: the directory is at ${urlOf(info)}\n`);
          if (uaNote !== undefined) stdout().write(uaNote);
          stdout().write(
            consoleOn
              ? `nor serve: the operator console is at ${urlOf(info)}console\n`
              : `nor serve: ${consoleOff}\n`,
          );
        });
        answerClientErrors(server);
        server.once("error", (err: NodeJS.ErrnoException) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          reject(listenError(err, opts.host, port));
        });
        let stopping = false;
        /** Stops serving: open connections get DRAIN_MS to finish; then `done`. */
        const close = (done: () => void) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          if (stopping) return;
          stopping = true;
          const force = setTimeout(() => {
            if ("closeAllConnections" in server) server.closeAllConnections();
          }, DRAIN_MS);
          force.unref();
          if ("closeIdleConnections" in server) server.closeIdleConnections();
          server.close(() => {
            clearTimeout(force);
            done();
          });
        };
        const stop = (signal: NodeJS.Signals) => {
          if (!stopping) stdout().write(`nor serve: ${signal}, stopping\n`);
          close(resolve);
        };
        damaged = (err) => close(() => reject(err));
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    } finally {
      await reads.close();
      await store.close();
    }
  });
}
