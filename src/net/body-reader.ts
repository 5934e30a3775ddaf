import { Duplex, pipeline, Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib";
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

/**
 * A zlib stream's two-byte header (RFC 1950 §2.2): compression method 8 (deflate), a window of
 * at most 32 KiB, and a check that makes the pair a multiple of 31. A raw deflate stream starts
 * with a block header, whose low four bits are never 8 as a deflater writes them (a stored
 * block's are 0 or 1, its padding zeros; the other block types set bit 1 or 2).
 */
function zlibHeader(b: Buffer): boolean {
  return (
    b.length >= 2 && (b[0]! & 0x0f) === 8 && b[0]! >> 4 <= 7 && ((b[0]! << 8) | b[1]!) % 31 === 0
  );
}

/**
 * `Content-Encoding: deflate` is a zlib stream (RFC 9110 §8.4.1.2), but old servers (IIS among
 * them) send raw deflate under that name; browsers read both, telling them apart by the first
 * two bytes, and so does this. The stream chosen is read as any other decoder: each chunk
 * waits for the reader (the limit still counts decoded bytes), and when the reader stops or the
 * body fails, the stream is destroyed with it.
 */
function inflateEither(): Duplex {
  return Duplex.from(async function* (
    source: AsyncIterable<Buffer>,
    { signal }: { signal: AbortSignal },
  ) {
    const it = source[Symbol.asyncIterator]();
    const head: Buffer[] = [];
    let got = 0;
    while (got < 2) {
      const r = await it.next();
      if (r.done) break;
      head.push(r.value);
      got += r.value.length;
    }
    const first = Buffer.concat(head);
    const inflate = zlibHeader(first) ? createInflate() : createInflateRaw();
    async function* all() {
      yield first;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    }
    pipeline(Readable.from(all(), { objectMode: false }), inflate, () => {});
    const stop = () => inflate.destroy();
    signal.addEventListener("abort", stop, { once: true });
    try {
      yield* inflate;
    } finally {
      signal.removeEventListener("abort", stop);
      inflate.destroy();
    }
  });
}

type Decoder = () => Duplex;
const DECODERS: Record<string, Decoder> = {
  gzip: () => createGunzip(),
  "x-gzip": () => createGunzip(),
  deflate: inflateEither,
  br: () => createBrotliDecompress(),
};

/**
 * P13, P14: at most this many codings are undone. Undoing happens once the bytes are in, where
 * no time limit reaches it, and each coding is one more stream for every chunk to pass: a body
 * gzipped 2,000 times (a head can name tens of thousands) took a core 35 s, 3,000 minutes. Real
 * servers name one, two at most; curl stops at five (CVE-2023-23916), and so does this.
 */
export const MAX_CONTENT_CODINGS = 5;

function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
}

/** Codings in the order to undo them (RFC 9110 §8.4: listed in the order applied). */
export function decodersFor(contentEncoding: string | undefined): Decoder[] | string {
  const codings = codingsOf(contentEncoding);
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
  const count = codingsOf(contentEncoding).length;
  if (count > MAX_CONTENT_CODINGS) {
    await discard(raw);
    const message = `Content-Encoding names ${count} codings, more than the ${MAX_CONTENT_CODINGS} the checker undoes`;
    return { kind: "bad-encoding", message, bytes: 0 };
  }
  const decoders = decodersFor(contentEncoding);
  if (typeof decoders === "string") {
    await discard(raw);
    return { kind: "bad-encoding", message: `unsupported Content-Encoding: ${decoders}`, bytes: 0 };
  }
  let source: AsyncIterable<Uint8Array> = raw;
  if (decoders.length > 0) {
    // No bytes at all is an empty body whatever it is marked (a browser shows an empty page):
    // no decoder is asked to read a stream that never began. A body that fails before its first
    // byte fails as it would undecoded.
    const it = raw[Symbol.asyncIterator]();
    let first: IteratorResult<Uint8Array>;
    try {
      do first = await it.next();
      while (!first.done && first.value.byteLength === 0);
    } catch (err) {
      if (err instanceof TransportBodyError) {
        return { kind: "failed", failure: err.failure, message: err.message, bytes: 0 };
      }
      return { kind: "bad-encoding", message: (err as Error).message, bytes: 0 };
    }
    if (first.done) return { kind: "complete", body: new Uint8Array(0), bytes: 0 };
    // Stopped early (the limit reached, a decoder failed), the raw body is let go with it, as
    // Readable.from lets go of an iterable it was given: its socket goes (transport-undici.ts).
    // Not an async generator: its return() waits for the read it is in to settle, which from a
    // server gone quiet is the 30 s of silence, the socket held (and the site's next request
    // queued behind it) all the while. The raw iterator's own return() lets go at once.
    const rest = withFirst(first.value, it);
    const streams = [Readable.from(rest, { objectMode: false }), ...decoders.map((d) => d())];
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

/** `first`, then the rest of `it`; returning it returns `it` at once, a read pending or not. */
function withFirst(first: Uint8Array, it: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  let head: Uint8Array | undefined = first;
  const iterator: AsyncIterator<Uint8Array> = {
    next: () => {
      if (head === undefined) return it.next();
      const value = head;
      head = undefined;
      return Promise.resolve({ done: false, value });
    },
    return: async () => {
      head = undefined;
      await it.return?.();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
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
