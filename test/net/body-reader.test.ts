import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";
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

  it("P14: Content-Encoding deflate is read zlib-wrapped or raw (old IIS), as browsers read it", async () => {
    const page = new TextEncoder().encode(
      `<html><body>${"Road salt bid. ".repeat(500)}</body></html>`,
    );
    for (const [name, body] of [
      ["zlib", deflateSync(page)],
      ["raw", deflateRawSync(page)],
      ["raw, stored blocks", deflateRawSync(page, { level: 0 })],
      ["zlib, stored blocks", deflateSync(page, { level: 0 })],
    ] as const) {
      // Whole, and the header split across chunks.
      const split = [
        body.subarray(0, 1),
        body.subarray(1, 2),
        body.subarray(2, 3),
        body.subarray(3),
      ];
      for (const parts of [[body], split]) {
        const out = await readBody(chunks(...parts), "deflate", 1_000_000);
        expect(out, name).toMatchObject({ kind: "complete", bytes: page.byteLength });
        if (out.kind === "complete") expect(Buffer.from(out.body).equals(page), name).toBe(true);
      }
    }
    // Under gzip too (codings undone in the order applied).
    const both = gzipSync(deflateRawSync(page));
    expect(await readBody(chunks(both), "deflate, gzip", 1_000_000)).toMatchObject({
      kind: "complete",
      bytes: page.byteLength,
    });
  });

  it("P14: raw deflate counts decoded bytes against the limit, and a cut or corrupt one is reported as such", async () => {
    const raw = deflateRawSync(Buffer.alloc(5_000_000, 0x61));
    expect(raw.byteLength).toBeLessThan(10_000);
    const out = await readBody(chunks(raw), "deflate", 1_000_000);
    expect(out).toMatchObject({ kind: "too-large" });
    expect(out.bytes).toBeGreaterThan(1_000_000);
    expect(out.bytes).toBeLessThan(1_200_000);
    const cutErr = new TransportBodyError("closed", "other side closed");
    expect(
      await readBody(chunks(raw.subarray(0, 100), cutErr), "deflate", 10_000_000),
    ).toMatchObject({ kind: "failed", failure: "closed" });
    expect(
      await readBody(chunks(new Uint8Array([0xff, 0xff, 0xff, 0xff])), "deflate", 100),
    ).toMatchObject({ kind: "bad-encoding" });
    expect(await readBody(chunks(raw.subarray(0, 50)), "deflate", 10_000_000)).toMatchObject({
      kind: "bad-encoding",
    });
  });
});
