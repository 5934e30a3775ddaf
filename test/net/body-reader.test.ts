import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodersFor, readBody } from "../../src/net/body-reader.js";
import { TransportBodyError } from "../../src/net/types.js";

async function* chunks(...parts: (Uint8Array | Error)[]) {
  for (const p of parts) {
    if (p instanceof Error) throw p;
    yield p;
  }
}

describe("body reader (P14)", () => {
  it("P14: counts bytes after decoding, so the limit applies to the inflated size", async () => {
    const gz = gzipSync(Buffer.alloc(5000, 0x61));
    expect(gz.byteLength).toBeLessThan(1000);
    const out = await readBody(chunks(gz), "gzip", 4096);
    expect(out).toMatchObject({ kind: "too-large" });
    expect(out.bytes).toBeGreaterThan(4096);
    const ok = await readBody(chunks(gz), "gzip", 8192);
    expect(ok).toMatchObject({ kind: "complete", bytes: 5000 });
  });

  it("P14: robots.txt keeps the first `limit` bytes when cut; pages keep nothing", async () => {
    const body = new TextEncoder().encode("abcdefghij");
    expect(await readBody(chunks(body), undefined, 4, true)).toMatchObject({
      kind: "too-large",
      body: body.subarray(0, 4),
    });
    expect(await readBody(chunks(body), undefined, 4)).toMatchObject({
      kind: "too-large",
      body: new Uint8Array(0),
    });
  });

  it("a transport failure mid-body is reported with what was read, through the decoder too", async () => {
    const gz = gzipSync(Buffer.alloc(100_000, 0x61));
    const cutErr = new TransportBodyError("closed", "other side closed");
    expect(await readBody(chunks(new Uint8Array(10), cutErr), undefined, 1000)).toMatchObject({
      kind: "failed",
      failure: "closed",
      bytes: 10,
    });
    expect(await readBody(chunks(gz.subarray(0, 200), cutErr), "gzip", 1_000_000)).toMatchObject({
      kind: "failed",
      failure: "closed",
    });
  });

  it("an unknown or corrupt Content-Encoding is an error, never passed on as the body", async () => {
    expect(decodersFor("gzip, zstd")).toBe("zstd");
    expect(await readBody(chunks(new Uint8Array(3)), "zstd", 100)).toMatchObject({
      kind: "bad-encoding",
    });
    expect(await readBody(chunks(new Uint8Array([1, 2, 3, 4])), "gzip", 100)).toMatchObject({
      kind: "bad-encoding",
    });
    expect((decodersFor("identity") as unknown[]).length).toBe(0);
  });
});
