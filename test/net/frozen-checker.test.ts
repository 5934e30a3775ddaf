import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  awakeTimeout,
  createUndiciTransport,
  LATE_TIMER_MS,
  MAX_LATE_REARMS,
  OWN_LAG_MAX_MS,
  type UndiciTransport,
} from "../../src/net/transport-undici.js";
import type { TransportResult } from "../../src/net/types.js";

/**
 * A checker frozen (SIGSTOP, a suspended machine) past its P14 limits with a request on the wire:
 * the site answered meanwhile, and its answer waits unread in the socket. Node runs due timers
 * before it reads sockets, so the checker used to wake to its own time-out first and record
 * the site as `timed-out` (found with two `nor night` workers on one store, one SIGSTOPped).
 *
 * The freeze here is the test's own thread held (Atomics.wait) right after the server, in the
 * same process, has written its answer: the same order of events as a SIGSTOP, with no process
 * of its own. L stands for P14's 30 s; the hold is longer than L plus LATE_TIMER_MS. Nothing
 * here measures elapsed time.
 */
const L = 200;
const HOLD_MS = L + LATE_TIMER_MS + 400;

/** This thread not running for `ms` (the process frozen). */
function frozen(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const transports: UndiciTransport[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function shortTransport(window = L): UndiciTransport {
  const t = createUndiciTransport({
    allowPrivateAddresses: true,
    headersTimeoutMs: window,
    bodyTimeoutMs: window,
    bodyTotalMs: window,
  });
  transports.push(t);
  return t;
}

async function bodyOf(r: TransportResult): Promise<string> {
  if (r.kind !== "response") throw new Error(`${r.failure}: ${r.message}`);
  const chunks: Uint8Array[] = [];
  for await (const c of r.body) chunks.push(c);
  return Buffer.concat(chunks).toString();
}

describe("a checker frozen with a request on the wire (P14, P27)", () => {
  it("P14: an answer that came while the checker was frozen past the headers limit is read, not recorded as the site's time-out", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "6" });
      res.end("hello\n");
      frozen(HOLD_MS);
    });
    const r = await shortTransport()({ url, method: "GET", headers: {} });
    expect(r).toMatchObject({ kind: "response", status: 200 });
    expect(await bodyOf(r)).toBe("hello\n");
  });

  it("P14: a body that came while the checker was frozen past the whole-body limit is read whole", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "12" });
      res.write("first ");
      res.flushHeaders();
      // The head is read by the checker first (its whole-body limit starts), then the rest
      // comes and the checker is frozen.
      setTimeout(() => {
        res.end("second");
        frozen(HOLD_MS);
      }, 50);
    });
    const r = await shortTransport()({ url, method: "GET", headers: {} });
    expect(await bodyOf(r)).toBe("first second");
  });

  it("P14: a site that sends nothing, while the checker is frozen and then awake for a whole window, still times out, saying the checker was away", async () => {
    const url = await serve(() => {
      // The request is read, never answered; the checker is frozen past its limit meanwhile.
      frozen(HOLD_MS);
    });
    const r = await shortTransport()({ url, method: "GET", headers: {} });
    expect(r).toMatchObject({ kind: "failure", failure: "timeout-headers" });
    expect(r.kind === "failure" && r.message).toMatch(/the checker was not running for \d+ ms/);
  });

  it("P14: a window found late is given again at most MAX_LATE_REARMS times, then it is due (bounded)", async () => {
    // A monotonic clock on which every firing comes far past its time.
    let t = 0;
    const late = () => {
      t += 10 * LATE_TIMER_MS;
      return t;
    };
    const away = await new Promise<number>((resolve) => awakeTimeout(1, resolve, late));
    expect(away).toBeGreaterThan(MAX_LATE_REARMS * LATE_TIMER_MS);
    // On time: due at once, nothing given again.
    const onTime = await new Promise<number>((resolve) => awakeTimeout(1, resolve, () => 0));
    expect(onTime).toBe(0);
  });

  it("P14: a window found late by the process's own work (a 5 s SQLite busy wait) is not given again: a slow site's request lasts its 30 s and that lag, no more", () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const due: number[] = [];
      awakeTimeout(
        30_000,
        (away) => due.push(away),
        () => now,
      );
      now = 35_000; // the timer runs 5 s after its time: the loop was held up, not frozen
      vi.advanceTimersByTime(30_000);
      expect(due).toEqual([]); // the sockets are read first
      vi.advanceTimersByTime(1); // one turn of the loop
      expect(due).toEqual([0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("P14: a window found late by a freeze is given again once at most, whatever the freezes after it", () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const due: number[] = [];
      awakeTimeout(
        30_000,
        (away) => due.push(away),
        () => now,
      );
      now = 30_000 + 2 * OWN_LAG_MAX_MS;
      vi.advanceTimersByTime(30_001);
      expect(due).toEqual([]);
      now += 30_000 + 2 * OWN_LAG_MAX_MS; // frozen again in the window given again
      vi.advanceTimersByTime(30_001);
      expect(due).toEqual([MAX_LATE_REARMS * 2 * OWN_LAG_MAX_MS]);
      expect(MAX_LATE_REARMS).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("P14: an answer that came while the checker was held up past the headers limit by less than the window (its own work) is read, not the site's time-out", async () => {
    // A window longer than the lag: not given again, and still what came is read first.
    const W = 2_500;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "6" });
      res.end("hello\n");
      frozen(W + LATE_TIMER_MS + 500);
    });
    const r = await shortTransport(W)({ url, method: "GET", headers: {} });
    expect(r).toMatchObject({ kind: "response", status: 200 });
    expect(await bodyOf(r)).toBe("hello\n");
  });

  it("P9, P14: a window found late by a freeze is not given again when it would end past the request's lease on its site (another machine may hold the site by then)", () => {
    vi.useFakeTimers();
    try {
      let now = 0;
      const due: number[] = [];
      // The lease runs out 120 s from the start; frozen till 100 s, a window given again would
      // end at 130 s.
      awakeTimeout(
        30_000,
        (away) => due.push(away),
        () => now,
        120_000,
      );
      now = 100_000;
      vi.advanceTimersByTime(30_000);
      vi.advanceTimersByTime(1);
      expect(due).toEqual([0]);
    } finally {
      vi.useRealTimers();
    }
  });
});
