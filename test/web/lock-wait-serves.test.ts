import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { storePasswordHash } from "../../src/store/read/console.js";
import { openWebReads, type WebReads } from "../../src/store/read-pool.js";
import { siteRules } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { Browser, hashOf, ORIGIN, PASSWORD, seedNight } from "./console-support.js";

/**
 * P27: a write that finds the SQLite store's write lock held by another process waits for it
 * (store/db.ts waitForLock) without stopping the process: meanwhile `nor serve`'s console still
 * answers. Before, each try at the lock sat in SQLite's busy handler for 5 s (busy_timeout) on
 * the event loop's thread, and nothing else of the process ran until it ended.
 *
 * The other process is a child that holds `begin immediate` on the store. Told the write has
 * been asked for, it asks for a console page and a public one while it still holds the lock, and
 * lets the lock go once both are answered, or after HOLD_MS without an answer (shorter than SQLite's 5 s busy
 * wait, so that a process blocked in it cannot answer in time). What it says is asserted, never
 * a duration.
 */
const REPO = join(import.meta.dirname, "..", "..");
const HOLD_MS = 4_500;

const HOLDER = `
const Database = require("better-sqlite3");
const [file, base, cookie, holdMs] = process.argv.slice(1);
const db = new Database(file);
db.pragma("busy_timeout = 5000");
db.exec("begin immediate");
process.stdout.write("held\\n");
process.stdin.once("data", async () => {
  const until = Date.now() + Number(holdMs);
  // The console's overview (its session read on the store's own handle, its page in the
  // console's reader), then the public page read on the store's own handle.
  const pages = [["/console", "2026-11-05"], ["/site-owners", "public-records-check"]];
  let answered = 0;
  for (let i = 0; i < 100 && answered < pages.length && Date.now() < until; i++) {
    const [path, text] = pages[answered];
    try {
      const r = await fetch(base + path, { headers: { cookie }, signal: AbortSignal.timeout(Math.max(1, until - Date.now())) });
      if (r.status === 200 && (await r.text()).includes(text)) answered++;
    } catch {}
  }
  db.exec("commit");
  db.close();
  process.stdout.write(answered === pages.length ? "answered while held\\n" : "not answered while held (" + answered + " of " + pages.length + ")\\n");
  process.exit(0);
});
`;

type Served = { url: string; close(): Promise<void> };

function serveApp(app: ReturnType<typeof createApp>): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            if ("closeAllConnections" in server) server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The child's next line matching `re` (bounded: 30 s, or the child's exit). */
function lineOf(proc: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => done(new Error(`no line ${re} in 30 s: ${out} ${err}`)), 30_000);
    const onOut = (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n").find((l) => re.test(l));
      if (line !== undefined) done(undefined, line);
    };
    const onErr = (c: Buffer) => {
      err += c.toString();
    };
    const onExit = (code: number | null) => done(new Error(`holder exited ${code}: ${out} ${err}`));
    function done(e: Error | undefined, line?: string) {
      clearTimeout(timer);
      proc.stdout?.off("data", onOut);
      proc.stderr?.off("data", onErr);
      proc.off("exit", onExit);
      if (e) reject(e);
      else resolve(line as string);
    }
    proc.stdout?.on("data", onOut);
    proc.stderr?.on("data", onErr);
    proc.on("exit", onExit);
  });
}

describe("a write waiting for another process's lock on a SQLite store", () => {
  let dir: string | undefined;
  let store: Store | undefined;
  let reads: WebReads | undefined;
  let served: Served | undefined;
  let holder: ChildProcess | undefined;

  afterEach(async () => {
    if (holder && holder.exitCode === null) holder.kill("SIGKILL");
    await served?.close();
    await reads?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P27: while a console write waits for the store's write lock another process holds, the console and /site-owners answer; then the write goes through, once", async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-lock-serves-"));
    const notes: string[] = [];
    store = await openStore({ kind: "sqlite", dir }, { onLockWait: (n) => notes.push(n) });
    await seedNight(store.db);
    reads = await openWebReads({ kind: "sqlite", dir });
    // The operator's password stored at the console fixtures' scrypt cost (console-support.ts
    // hashOf): the console's full-cost hash and check are console-cli's and browser's.
    await storePasswordHash(store.db, hashOf(PASSWORD), Date.UTC(2026, 10, 5, 14));
    const app = createApp({
      db: store.db,
      reads,
      now: () => Date.UTC(2026, 10, 5, 14),
      origin: ORIGIN,
      console: {},
    });
    const b = new Browser(app);
    expect((await b.signIn()).status).toBe(303);
    const csrf = await b.token("/console/sites");
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    served = await serveApp(app);

    holder = spawn(
      process.execPath,
      ["-e", HOLDER, join(dir, "nor.db"), served.url, cookie, String(HOLD_MS)],
      { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] },
    );
    await lineOf(holder, /^held$/);

    // The console's own form, in this process: the rule is written in a transaction that
    // begins by taking the write lock, which the holder has.
    const posted = b.post("/console/sites/rules", {
      csrf,
      site: "www.a.gov",
      kind: "gap",
      value: "30s",
      reason: "clerk: slower",
    });
    const said = lineOf(holder, /answered while held/);
    holder.stdin?.write("go\n");

    expect(await said).toBe("answered while held");
    const res = await posted;
    expect(res.status).toBe(303);
    // Written once, neither lost nor doubled by the tries at the lock.
    expect((await siteRules(store.db)).map((r) => [r.site, r.kind, r.value, r.reason])).toEqual([
      ["a.gov", "gap", "30000", "clerk: slower"],
    ]);
  }, 60_000);
});
