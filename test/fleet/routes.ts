import { createGzip } from "node:zlib";
import type { Handler } from "./fleet.js";

/** Scriptable route handlers for the fleet: each is one way a real server behaves. */
export function text(
  body: string | Uint8Array,
  status = 200,
  headers: Record<string, string> = {},
): Handler {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
    res.end(body);
  };
}

export const html = (
  body: string | Uint8Array,
  status = 200,
  headers: Record<string, string> = {},
) => text(body, status, { "content-type": "text/html; charset=utf-8", ...headers });

export const robots = (body: string | Uint8Array) => text(body);

export const status = (code: number, headers: Record<string, string> = {}) =>
  text(`status ${code}`, code, headers);

export const redirect = (location: string, code = 302): Handler => text("", code, { location });

/** Different answers on successive requests (the last one repeats). */
export function sequence(...handlers: Handler[]): Handler {
  return (req, res, ctx) => handlers[Math.min(ctx.count, handlers.length) - 1]!(req, res, ctx);
}

/** A TCP reset before any response byte. */
export const reset: Handler = (req) => {
  req.socket.resetAndDestroy();
};

/** Never answers (the client's headers timeout has to end it). */
export const hang: Handler = () => {};

/** Promises `length` bytes, sends `sent`, then closes the connection. */
export const cut =
  (length: number, sent: number): Handler =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": String(length) });
    res.write("x".repeat(sent), () => res.socket?.destroy());
  };

/** A chunked body that is never terminated. */
export const cutChunked =
  (sent: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.write(sent, () => res.socket?.destroy());
  };

/** `total` bytes streamed in 64 KiB writes, honouring backpressure. */
export const big =
  (total: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream", ...headers });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = total;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once("drain", pump);
          return;
        }
      }
      res.end();
    };
    res.on("close", () => {
      left = 0;
    });
    pump();
  };

/**
 * A small gzip body that inflates to `inflated` bytes (a decompression bomb). Compressed in
 * 1 MiB steps so the server side never holds the inflated size in memory either.
 */
export function gzipBomb(inflated: number): Handler {
  let body: Promise<Buffer> | undefined;
  const make = async () => {
    const gz = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gz.on("data", (c: Buffer) => out.push(c));
    const done = new Promise((r) => gz.once("end", r));
    const zeros = Buffer.alloc(1024 * 1024, 0);
    for (let left = inflated; left > 0; left -= zeros.length) {
      if (!gz.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) {
        await new Promise((r) => gz.once("drain", r));
      }
    }
    gz.end();
    await done;
    return Buffer.concat(out);
  };
  return async (req, res, ctx) => {
    body ??= make();
    await text(await body, 200, { "content-encoding": "gzip", "content-type": "text/html" })(
      req,
      res,
      ctx,
    );
  };
}

/** Sends `body` one byte at a time, `everyMs` apart (a slow but live server). */
export const trickle =
  (body: string, everyMs: number): Handler =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": String(body.length) });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(body[i++]!);
      if (i >= body.length) {
        clearInterval(timer);
        res.end();
      }
    }, everyMs);
    res.on("close", () => clearInterval(timer));
  };

/** Sends `first`, then goes silent for `silentMs`, then sends the rest. */
export const stall =
  (first: string, silentMs: number, rest: string): Handler =>
  (_req, res) => {
    res.writeHead(200, {
      "content-type": "text/plain",
      "content-length": String(first.length + rest.length),
    });
    res.write(first);
    const timer = setTimeout(() => res.end(rest), silentMs);
    res.on("close", () => clearTimeout(timer));
  };
