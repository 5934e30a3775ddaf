import { pipeline, Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { TransportBodyError, type TransportFailure } from "./types.js";

/**
 * Reads a response body: undoes Content-Encoding as a stream and counts bytes AFTER decoding,
 * stopping at the limit (P14), so a 200 MB gzip bomb costs at most the limit plus zlib's
 * buffers. Leaving early destroys the transport's body, which aborts the socket.
 */
export type BodyRead =
  /** `bytes` counts decoded bytes. */
  | { kind: "complete"; body: Uint8Array; bytes: number }
  /** The limit was reached; `body` holds the first `limit` bytes when asked for (robots.txt). */
  | { kind: "too-large"; body: Uint8Array; bytes: number }
  /** The transfer failed mid-way (cut, reset, silence). */
  | { kind: "failed"; failure: TransportFailure; message: string; bytes: number }
  /** A Content-Encoding we cannot undo, or a corrupt compressed stream. */
  | { kind: "bad-encoding"; message: string; bytes: number };

type Decoder = () => Transform;
const DECODERS: Record<string, Decoder> = {
  gzip: () => createGunzip(),
  "x-gzip": () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/** Codings in the order to undo them (RFC 9110 §8.4: listed in the order applied). */
export function decodersFor(contentEncoding: string | undefined): Decoder[] | string {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  const out: Decoder[] = [];
  for (const c of codings.reverse()) {
    const d = DECODERS[c];
    if (!d) return c;
    out.push(d);
  }
  return out;
}

export async function readBody(
  raw: AsyncIterable<Uint8Array>,
  contentEncoding: string | undefined,
  limit: number,
  keepPrefix = false,
): Promise<BodyRead> {
  const decoders = decodersFor(contentEncoding);
  if (typeof decoders === "string") {
    await discard(raw);
    return { kind: "bad-encoding", message: `unsupported Content-Encoding: ${decoders}`, bytes: 0 };
  }
  let source: AsyncIterable<Uint8Array> = raw;
  if (decoders.length > 0) {
    const streams = [Readable.from(raw, { objectMode: false }), ...decoders.map((d) => d())];
    // pipeline destroys every stage when one fails or when we stop reading the last one.
    pipeline(streams, () => {});
    source = streams[streams.length - 1] as AsyncIterable<Uint8Array>;
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of source) {
      const room = limit - bytes;
      if (chunk.byteLength > room) {
        if (!keepPrefix)
          return { kind: "too-large", body: new Uint8Array(0), bytes: bytes + chunk.byteLength };
        if (room > 0) chunks.push(chunk.subarray(0, room));
        return { kind: "too-large", body: concat(chunks, limit), bytes: bytes + chunk.byteLength };
      }
      chunks.push(chunk);
      bytes += chunk.byteLength;
    }
  } catch (err) {
    if (err instanceof TransportBodyError) {
      return { kind: "failed", failure: err.failure, message: err.message, bytes };
    }
    return { kind: "bad-encoding", message: (err as Error).message, bytes };
  }
  return { kind: "complete", body: concat(chunks, bytes), bytes };
}

async function discard(raw: AsyncIterable<Uint8Array>): Promise<void> {
  // Returning from the iterator at once releases (aborts) the connection.
  const it = raw[Symbol.asyncIterator]();
  await it.return?.();
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
