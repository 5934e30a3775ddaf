import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import Sqlite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { main } from "../../src/cli/main.js";
import { ManualClock } from "../../src/clock.js";
import { openStore } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { Browser } from "./console-support.js";

/**
 * A store whose damage is met only by a request's read (its records and request log lost, the
 * rest whole) is said by `nor serve` and `nor start` as every command says it
 * (docs/operations.md: `DATA/nor.db is damaged (SQLite: …): restore it from a backup`, exit 1),
 * never as a bare 500 and a stack trace: the request is answered 503 (JSON under /api/,
 * docs/api.md), and the command stops, its server closed.
 */
const NIGHT = "2026-11-05";
let fleet: Fleet;
let dir: string;
let catalog: string;

beforeAll(async () => {
  fleet = await startFleet();
  const site = await fleet.server();
  site.route("/robots.txt", (_q, res) => void res.writeHead(200).end("User-agent: *\nAllow: /\n"));
  site.route(
    "/agendas.rss",
    (_q, res) =>
      void res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>${site.origin}/</link><description>d</description><item><title>Council agenda</title><link>${site.origin}/agenda/1</link><guid>${site.origin}/agenda/1</guid><pubDate>Tue, 03 Nov 2026 18:00:00 GMT</pubDate></item></channel></rss>`,
        ),
  );
  dir = mkdtempSync(join(tmpdir(), "nor-serve-damaged-"));
  catalog = join(dir, "catalog.yaml");
  writeFileSync(
    catalog,
    [
      "governments:",
      "  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }",
      "sources:",
      "  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, " +
        `url: "${site.url("/agendas.rss")}" }`,
      "",
    ].join("\n"),
  );
  const r = await runMain(
    ["night", "--catalog", catalog, "--data", join(dir, "whole"), "--night", NIGHT].concat([
      "--allow-private-addresses",
      "--gap-ms",
      "50",
    ]),
  );
  if (r.code !== 0) throw new Error(`nor night exited ${r.code}: ${r.stderr}`);
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let copies = 0;
/**
 * A copy of the store (SQLite's backup, and its archive) whose tables `records` and
 * `request_log` have lost their root pages and their indexes' (garbage over them): it opens,
 * and only a statement that reads them meets the damage.
 */
async function damagedCopy(): Promise<{ data: string; file: string }> {
  const data = join(dir, `copy-${++copies}`);
  mkdirSync(data);
  const file = join(data, "nor.db");
  cpSync(join(dir, "whole", "archive"), join(data, "archive"), { recursive: true });
  const whole = new Sqlite(join(dir, "whole", "nor.db"), { readonly: true });
  try {
    await whole.backup(file);
  } finally {
    whole.close();
  }
  const raw = new Sqlite(file);
  const roots = raw
    .prepare(
      "select rootpage from sqlite_master where tbl_name in ('records', 'request_log') and rootpage > 0",
    )
    .pluck()
    .all() as number[];
  const size = raw.pragma("page_size", { simple: true }) as number;
  raw.pragma("journal_mode = DELETE");
  raw.close();
  expect(roots.length).toBeGreaterThan(2);
  const bytes = readFileSync(file);
  let x = 12345;
  for (const p of roots)
    for (let i = (p - 1) * size; i < p * size; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      bytes[i] = x >> 16;
    }
  writeFileSync(file, bytes);
  return { data, file };
}

/** What every command says of a damaged store file. */
function damaged(file: string): string {
  return `${file} is damaged (SQLite: database disk image is malformed): restore it from a backup (docs/operations.md, "Backups"); \`sqlite3 ${file} 'PRAGMA quick_check'\` lists what is damaged`;
}

/** Resolves within `ms`, or rejects saying what did not end. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} did not end in ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** `nor serve --port 0` in this process: its URL once it listens, and how it ended. */
function serve(data: string): {
  url: Promise<string>;
  ended: Promise<{ code: number; stdout: string; stderr: string }>;
} {
  let out = "";
  let err = "";
  let found: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    found = resolve;
  });
  const ended = main(["node", "nor", "serve", "--data", data, "--port", "0"], {
    stdout: {
      isTTY: false,
      write: (c) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m?.[1]) found(m[1]);
      },
    },
    stderr: {
      isTTY: false,
      write: (c) => {
        err += c.toString();
      },
    },
    stdin: Readable.from([]),
  }).then((code) => {
    process.exitCode = 0;
    return { code, stdout: out, stderr: err };
  });
  return { url: within(Promise.race([url, ended.then(() => "")]), 20_000, "listening"), ended };
}

/** The page or JSON said to the client: never a stack trace nor SQLite's own words. */
function expectNoInnards(text: string): void {
  expect(text).not.toMatch(/SqliteError|malformed|\bat \S+ \(|nor\.db|Internal Server Error/);
}

describe("nor serve on a store damaged past its open", () => {
  for (const [path, type] of [
    ["/api/sources/test-agendas", "application/json"],
    ["/new", "text/html"],
    ["/", "text/html"],
  ] as const) {
    it(`${path}: the first request that meets the damage is answered 503 (${type}), and nor serve says the store is damaged as every command does and stops (exit 1)`, async () => {
      const { data, file } = await damagedCopy();
      const { url, ended } = serve(data);
      const at = await url;
      expect(at, (await Promise.race([ended, Promise.resolve(undefined)]))?.stderr).not.toBe("");
      const res = await fetch(new URL(path, at), { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      expect(res.status, text).toBe(503);
      expect(res.headers.get("content-type")).toContain(type);
      expect(res.headers.get("cache-control")).toBe("no-store");
      if (type === "application/json") {
        const body = JSON.parse(text) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(["error"]);
        expect(body["error"]).toMatch(/damaged/);
      } else expect(text).toMatch(/damaged/);
      expectNoInnards(text);
      const r = await within(ended, 20_000, "nor serve");
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(`nor: ${damaged(file)}\n`);
    }, 60_000);
  }
});

describe("nor start on a store damaged past its open", () => {
  it("a request that meets the damage is answered 503; nor start stops its schedule and server and says the store is damaged (exit 1 by its error)", async () => {
    const { data, file } = await damagedCopy();
    const stop = new AbortController();
    const lines: string[] = [];
    let listening: (url: string) => void = () => {};
    const url = new Promise<string>((resolve) => {
      listening = resolve;
    });
    let nights = 0;
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
      },
      {
        // Noon in New York on the date of the store's night (run: none is owed, P13): no night
        // is due for hours.
        clock: new ManualClock(Date.UTC(2026, 10, 5, 17, 0)),
        say: (l) => lines.push(l),
        signal: stop.signal,
        onListening: listening,
        runNight: async () => {
          nights++;
          return 0;
        },
      },
    );
    const settled = running.then(
      () => undefined,
      (e: unknown) => e,
    );
    try {
      const at = await within(Promise.race([url, settled.then(() => "")]), 20_000, "listening");
      expect(at, String(await Promise.race([settled, Promise.resolve("running")]))).not.toBe("");
      const res = await fetch(new URL("/api/sources/test-agendas", at), {
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      expect(res.status, text).toBe(503);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(JSON.parse(text)).toEqual({ error: expect.stringMatching(/damaged/) });
      expectNoInnards(text);
      const err = await within(settled, 20_000, "nor start");
      expect(err).toMatchObject({ code: "E_STORE", message: damaged(file) });
      expect(lines).not.toContain("stopped");
      expect(nights).toBe(0);
      // Stopped: its server no longer answers, its lock is let go.
      await expect(fetch(at, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
      expect(() => readFileSync(join(data, "start.lock"))).toThrow();
    } finally {
      stop.abort();
      await within(settled, 20_000, "nor start");
    }
  }, 60_000);
});

describe("the console's request-log download on a store damaged past its open", () => {
  it("/console/log.json: a download whose first read meets the damage is answered 503 and said to the operator once, not begun as a 200 that breaks off", async () => {
    const { data, file } = await damagedCopy();
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const said: string[] = [];
      const app = createApp({
        db: store.db,
        now: () => Date.now(),
        console: { password: "a long operator pass phrase" },
        onStoreDamaged: (err) => said.push(err.message),
      });
      const b = new Browser(app);
      expect((await b.signIn("a long operator pass phrase")).status).toBe(303);
      const res = await b.get("/console/log.json?site=127.0.0.1");
      const text = await res.text().catch((e: unknown) => `(broke off: ${String(e)})`);
      expect(res.status, text).toBe(503);
      // A file's address: said in plain text, as its other refusals (app.tsx storeDamagedAnswer).
      expect(text).toMatch(/damaged/);
      expectNoInnards(text);
      expect(said).toEqual([damaged(file)]);
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe("the public downloads on a store damaged past its open", () => {
  for (const format of ["csv", "json"] as const) {
    it(`/downloads/records.${format}: a download whose first read meets the damage is answered 503 and said to the operator once, not begun as a 200 that breaks off`, async () => {
      const { data, file } = await damagedCopy();
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        const said: string[] = [];
        const app = createApp({
          db: store.db,
          now: () => Date.now(),
          onStoreDamaged: (err) => said.push(err.message),
        });
        const res = await app.request(`/downloads/records.${format}`);
        const text = await res.text().catch((e: unknown) => `(broke off: ${String(e)})`);
        expect(res.status, text).toBe(503);
        expect(text).toMatch(/damaged/);
        expectNoInnards(text);
        expect(said).toEqual([damaged(file)]);
      } finally {
        await store.close();
      }
    }, 60_000);
  }
});
