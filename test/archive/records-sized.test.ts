/**
 * The WARC writer deflates each record with zlib's window and hash sized to it
 * (src/store/archive/records.ts, `sizedFor`): seen at node:zlib itself, wrapped here.
 */
import { describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => [] as { bytes: number; options: unknown }[]);
vi.mock("node:zlib", async (importOriginal) => {
  const zlib = await importOriginal<typeof import("node:zlib")>();
  return {
    ...zlib,
    gzipSync: (buf: Uint8Array, options?: unknown) => {
      calls.push({ bytes: buf.length, options });
      return zlib.gzipSync(buf, options as never);
    },
  };
});

const { sha256Digest } = await import("../../src/store/archive/digest.js");
const { requestRecord, responseRecord, sizedFor } = await import(
  "../../src/store/archive/records.js"
);
const { exchange } = await import("./support/fixtures.js");

describe("a record deflated with zlib sized to it (P8)", () => {
  it("P8: each record of a page, request and response, is deflated with the window and hash sizedFor its length gives", async () => {
    const ex = exchange("http://127.0.0.2/agendas", "<p>Agenda, 5 Nov</p>".repeat(60));
    await responseRecord(
      ex,
      "<urn:uuid:0a3c2b1e-9c51-4f6a-8f3e-5b1d2c7e9f10>",
      sha256Digest(ex.response.body),
    );
    await requestRecord(
      ex,
      "<urn:uuid:7d4e1f20-3b6a-4c8d-9e2f-1a5b6c7d8e9f>",
      "<urn:uuid:0a3c2b1e-9c51-4f6a-8f3e-5b1d2c7e9f10>",
    );
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(c.options).toEqual(sizedFor(c.bytes));
      expect(c.options).not.toEqual({ windowBits: 15, memLevel: 8 });
    }
  });
});
