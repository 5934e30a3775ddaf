import type { ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  Answer,
  createUndiciTransport,
  effectiveTimeouts,
  type UndiciTransport,
  type UndiciTransportOptions,
} from "../../src/net/transport-undici.js";
import { BODY_SILENCE_MS, BODY_TOTAL_MS, HEADERS_TIMEOUT_MS } from "../../src/policy/constants.js";
import { createApp } from "../../src/web/app.js";
import { TLS_HOST } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

/**
 * P14, P15 on loopback with the limits shortened (never lengthened): L stands for 30 s.
 * Nothing here measures elapsed time; each server records what it saw (how many requests,
 * what it got to send, whether the checker closed the connection before the answer ended).
 */
const L = 300;

let h: Harness | undefined;
const transports: UndiciTransport[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const c of cleanups.splice(0)) await c();
  await h?.close();
  h = undefined;
});

/** The real undici transport with shortened P14 limits, as loopback tests may. */
function shortTransport(extra: UndiciTransportOptions = {}): UndiciTransport {
  const t = createUndiciTransport({
    allowPrivateAddresses: true,
    headersTimeoutMs: L,
    bodyTimeoutMs: L,
    bodyTotalMs: L,
    ...extra,
  });
  transports.push(t);
  return t;
}

/**
 * What a server saw of one answer: bytes it wrote, and whether the client hung up before the
 * answer ended. `closed` settles when the server sees the connection end, either way (every
 * scripted answer here ends on its own, so awaiting it is bounded).
 */
interface Watch {
  sent: number;
  finalSent: boolean;
  closedByClient: boolean;
  closed: Promise<void>;
}
function watch(res: ServerResponse): Watch {
  const w: Watch = { sent: 0, finalSent: false, closedByClient: false, closed: Promise.resolve() };
  w.closed = new Promise((resolve) => {
    res.once("close", () => {
      w.closedByClient = !res.writableFinished;
      resolve();
    });
  });
  return w;
}

describe("time limits (P14, P15)", () => {
  it.each([
    ["plain", undefined],
    ["gzip", "gzip"],
  ] as const)(
    "P14, P15: the drip (headers, then a byte every L/3), %s, is closed by the checker within the total body limit, timed-out, logged with what was read, and never asked again",
    async (_name, encoding) => {
      h = await harness();
      const s = await h.fleet.server();
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      const text = "<li>bid</li>".repeat(4);
      const body = encoding === "gzip" ? gzipSync(text) : Buffer.from(text);
      let w: Watch | undefined;
      s.route("/drip", (_req, res) => {
        w = watch(res);
        const seen = w;
        res.writeHead(200, {
          "content-type": "text/html",
          "content-length": String(body.length),
          ...(encoding ? { "content-encoding": encoding } : {}),
        });
        seen.finalSent = true;
        // One byte every L/3: the silence limit (L) is never reached, only the total one.
        const timer = setInterval(() => {
          if (res.destroyed || seen.sent >= body.length) {
            clearInterval(timer);
            return;
          }
          res.write(body.subarray(seen.sent, seen.sent + 1));
          seen.sent++;
          if (seen.sent === body.length) res.end();
        }, L / 3);
        res.once("close", () => clearInterval(timer));
      });
      // The silence limit further off than the total one, so only the total can end it even
      // when a busy machine delays a drip.
      const f = h.fetcher({ transport: shortTransport({ bodyTimeoutMs: 4 * L }) });
      const out = await f.fetch({ url: s.url("/drip"), purpose: "page" });
      expect(out).toMatchObject({ kind: "timed-out", phase: "body" });
      expect(s.hits("/drip")).toHaveLength(1);
      await w?.closed;
      expect(w?.closedByClient).toBe(true);
      expect(w?.sent).toBeLessThan(body.length);
      const entries = h.ports.log.entries.filter((e) => e.url === s.url("/drip"));
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ outcome: "timed-out", attempt: 1, status: 200 });
      // What was read is recorded (decoded bytes: a gzip header alone decodes to none).
      if (!encoding) expect(entries[0]?.bytes).toBeGreaterThan(0);
      expect(entries[0]?.failure).toMatch(/^timeout-body: body not complete within/);
    },
  );

  it("P14: 103 Early Hints never restart the wait for the headers", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    let w: Watch | undefined;
    let hints = 0;
    s.route("/hints", (_req, res) => {
      w = watch(res);
      const seen = w;
      // A 103 every L/3, up to 8 L in all, then the answer: far past the headers limit.
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          return;
        }
        if (hints < 24) {
          res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
          hints++;
          return;
        }
        clearInterval(timer);
        seen.finalSent = true;
        res.writeHead(200, { "content-type": "text/plain" }).end("late");
      }, L / 3);
      res.once("close", () => clearInterval(timer));
    });
    const f = h.fetcher({ transport: shortTransport() });
    const out = await f.fetch({ url: s.url("/hints"), purpose: "page" });
    expect(out).toMatchObject({ kind: "timed-out", phase: "headers" });
    expect(hints).toBeGreaterThan(0);
    await w?.closed;
    expect(w?.finalSent).toBe(false);
    expect(w?.closedByClient).toBe(true);
    expect(s.hits("/hints")).toHaveLength(1);
    expect(h.ports.log.entries.at(-1)).toMatchObject({ outcome: "timed-out", attempt: 1 });
  });

  it("P14: the wait for the headers counts from the start of the attempt, the TLS handshake included", async () => {
    // A longer L here: the handshake's own work must stay well inside it on a busy machine.
    const LT = 1_500;
    h = await harness();
    const cert = await h.fleet.cert();
    const seen: { path: string; answered: boolean; watch: Watch }[] = [];
    const tls = createHttpsServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      const entry = { path: req.url ?? "", answered: false, watch: watch(res) };
      seen.push(entry);
      const answer = () => {
        entry.answered = true;
        res.writeHead(200, { "content-type": "text/plain", connection: "close" });
        res.end(req.url === "/robots.txt" ? "User-agent: *\nAllow: /\n" : "page");
      };
      // Each part alone stays under LT; handshake plus this wait does not.
      if (req.url === "/robots.txt") answer();
      else {
        const timer = setTimeout(answer, (2 * LT) / 3);
        res.once("close", () => clearTimeout(timer));
      }
    });
    // Every connection after the first (robots.txt) waits 2LT/3 before its handshake starts.
    let connections = 0;
    const sockets = new Set<Socket>();
    const front = createNetServer((socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      connections++;
      const hand = () => tls.emit("connection", socket);
      if (connections === 1) hand();
      else {
        const timer = setTimeout(hand, (2 * LT) / 3);
        socket.once("close", () => clearTimeout(timer));
      }
    });
    await new Promise<void>((r) => front.listen(0, TLS_HOST, r));
    cleanups.push(async () => {
      for (const sk of sockets) sk.destroy();
      await new Promise<void>((r) => front.close(() => r()));
    });
    const { port } = front.address() as AddressInfo;
    const transport = shortTransport({ caFile: cert.certFile, headersTimeoutMs: LT });
    const f = h.fetcher({ transport });
    const out = await f.fetch({ url: `https://${TLS_HOST}:${port}/page`, purpose: "page" });
    expect(out).toMatchObject({ kind: "timed-out", phase: "headers" });
    expect(h.ports.log.entries.map((e) => e.outcome)).toEqual(["rules", "timed-out"]);
    // One connection for the page (no retry), and the page never answered: the checker hung
    // up first. (On a machine too busy to finish the handshake within LT the request never
    // arrives at all; that is the same rule, met sooner.)
    expect(connections).toBe(2);
    expect(seen[0]?.path).toBe("/robots.txt");
    const page = seen.slice(1);
    expect(page.map((x) => x.path)).toEqual(page.length === 0 ? [] : ["/page"]);
    for (const p of page) {
      await p.watch.closed;
      expect(p.answered).toBe(false);
      expect(p.watch.closedByClient).toBe(true);
    }
  });

  it("P14: a body left unread (an encoding we cannot undo) is released at once, its timer with it", async () => {
    const aborted: (Error | undefined)[] = [];
    const answer = new Answer(5);
    answer.onConnect((err) => aborted.push(err));
    answer.onHeaders(200, [], () => {});
    answer.onData(Buffer.from("x"));
    await answer[Symbol.asyncIterator]().return?.();
    expect(aborted).toHaveLength(1);
    // Past the (cleared) whole-body limit nothing is cut a second time.
    await new Promise((r) => setTimeout(r, 30));
    expect(aborted).toHaveLength(1);
  });

  it("P14: a body read to its end keeps its connection, and its whole-body timer is cleared", async () => {
    const aborted: (Error | undefined)[] = [];
    const answer = new Answer(5);
    answer.onConnect((err) => aborted.push(err));
    answer.onHeaders(200, [], () => {});
    answer.onData(Buffer.from("ab"));
    answer.onComplete();
    const got: string[] = [];
    for await (const c of answer) got.push(Buffer.from(c).toString());
    expect(got).toEqual(["ab"]);
    await new Promise((r) => setTimeout(r, 30));
    expect(aborted).toEqual([]);
  });

  it("P14: past the whole-body limit the read fails as timeout-body and the socket is let go", async () => {
    const aborted: (Error | undefined)[] = [];
    const answer = new Answer(5);
    answer.onConnect((err) => aborted.push(err));
    answer.onHeaders(200, [], () => {});
    answer.onData(Buffer.from("a"));
    const it = answer[Symbol.asyncIterator]();
    expect((await it.next()).value).toBeDefined();
    await expect(it.next()).rejects.toMatchObject({ failure: "timeout-body" });
    expect(aborted).toHaveLength(1);
  });

  it("P14: a body let go reads as ended, to every reader waiting on it, and says the exchange is over", async () => {
    let ended = 0;
    const answer = new Answer(1_000);
    answer.onEnd = () => ended++;
    answer.onConnect(() => answer.onError(new Error("aborted")));
    answer.onHeaders(200, [], () => {});
    const it = answer[Symbol.asyncIterator]();
    const waiting = [it.next(), it.next()];
    await it.return?.();
    expect(await Promise.all(waiting)).toEqual([
      { done: true, value: undefined },
      { done: true, value: undefined },
    ]);
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(ended).toBeGreaterThan(0);
  });

  it("P14: a body that arrives in full, or fails, ends the exchange even when nobody reads it (its signal's listener goes)", async () => {
    for (const end of ["complete", "fail"] as const) {
      let ended = 0;
      const answer = new Answer(1_000);
      answer.onEnd = () => ended++;
      answer.onConnect(() => {});
      answer.onHeaders(200, [], () => {});
      answer.onData(Buffer.from("x"));
      if (end === "complete") answer.onComplete();
      else answer.onError(new Error("other side closed"));
      expect(ended, end).toBeGreaterThan(0);
    }
  });

  it("P14: a reader that falls behind pauses the socket, and resumes it once it has read", async () => {
    let resumed = 0;
    const answer = new Answer(1_000);
    answer.onConnect(() => {});
    answer.onHeaders(200, [], () => resumed++);
    const big = Buffer.alloc(40 * 1024);
    expect(answer.onData(big)).toBe(true);
    expect(answer.onData(big)).toBe(false); // 80 KB waiting: pause
    const it = answer[Symbol.asyncIterator]();
    await it.next();
    expect(resumed).toBe(1);
    answer.onComplete();
    await it.next();
    expect((await it.next()).done).toBe(true);
  });

  it("P14: the limits may be shortened for tests but never lengthened past 30 s", () => {
    expect(effectiveTimeouts({})).toMatchObject({
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_SILENCE_MS,
      bodyTotal: BODY_TOTAL_MS,
    });
    expect(effectiveTimeouts({ bodyTotalMs: 120_000 }).bodyTotal).toBe(BODY_TOTAL_MS);
    expect(effectiveTimeouts({ bodyTotalMs: 250 }).bodyTotal).toBe(250);
    expect(() => effectiveTimeouts({ bodyTotalMs: 0 })).toThrow(ConfigError);
    expect(() => effectiveTimeouts({ bodyTotalMs: Number.NaN })).toThrow(/bodyTotal/);
  });

  it("P2, P14: the site-owner page states both body limits from the constants", async () => {
    const res = await createApp({ now: () => Date.now() }).request("/site-owners");
    const page = await res.text();
    const limits = /<li id="limits">([\s\S]*?)<\/li>/.exec(page)?.[1]?.replace(/\s+/g, " ");
    expect(limits).toContain(`${HEADERS_TIMEOUT_MS / 1000} seconds`);
    expect(limits).toContain(`${BODY_SILENCE_MS / 1000} seconds of silence`);
    expect(limits).toContain(`${BODY_TOTAL_MS / 1000} seconds in all`);
    expect(limits).toContain("not tried again that night");
  });
});
