/**
 * The hand-built WARC writer (src/store/archive/records.ts) against warcio, the reader the
 * archive is read back with: each kind of record parses, carries the same named fields and
 * HTTP head as warcio's own writer gave for the same exchange, and its digests verify.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WARC_1_1, WARCParser, WARCRecord, WARCSerializer } from "warcio";
import { NorError } from "../../src/errors.js";
import { capturesOf } from "../../src/store/archive/captures.js";
import { DIGEST_OPTS, sha256Digest } from "../../src/store/archive/digest.js";
import { headersOf, parseHttpRecord, setCookiesOf } from "../../src/store/archive/read.js";
import {
  type Exchange,
  type Original,
  REVISIT_PROFILE,
  requestRecord,
  responseRecord,
  statusLine,
  storedHttpHeaders,
  warcDate,
  warcinfoRecord,
} from "../../src/store/archive/records.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

const ID = "<urn:uuid:0a3c2b1e-9c51-4f6a-8f3e-5b1d2c7e9f10>";
const ID2 = "<urn:uuid:7d4e1f20-3b6a-4c8d-9e2f-1a5b6c7d8e9f>";

/** The records as warcio's writer built them before (the reference for the fields). */
async function warcioResponse(ex: Exchange, id: string, digest: string, revisitOf?: Original) {
  const body = ex.response.body;
  const { http, original } = storedHttpHeaders(ex.response.headers, body.length);
  const warcHeaders: Record<string, string> = {
    "WARC-Record-ID": id,
    "WARC-Payload-Digest": digest,
    "NOR-Purpose": ex.purpose,
    ...original,
  };
  if (ex.source !== undefined) warcHeaders["NOR-Source"] = ex.source;
  const common = {
    url: ex.response.url,
    date: warcDate(ex.fetchedAt),
    warcVersion: WARC_1_1,
    statusline: statusLine(ex.response.status),
    httpHeaders: http,
    warcHeaders,
  } as const;
  const rec = revisitOf
    ? WARCRecord.create({
        ...common,
        type: "revisit",
        refersToUrl: revisitOf.url,
        refersToDate: revisitOf.date,
      })
    : WARCRecord.create({ ...common, type: "response" }, [body]);
  return WARCSerializer.serialize(rec, { gzip: true, digest: DIGEST_OPTS });
}

async function warcioRequest(ex: Exchange, id: string, concurrentTo: string) {
  const target = new URL(ex.request.url);
  const http: [string, string][] = [["host", target.host], ...Object.entries(ex.request.headers)];
  const body = ex.request.body !== undefined ? [new TextEncoder().encode(ex.request.body)] : [];
  const rec = WARCRecord.create(
    {
      url: ex.request.url,
      date: warcDate(ex.fetchedAt),
      type: "request",
      warcVersion: WARC_1_1,
      statusline: `${ex.request.method} ${target.pathname}${target.search} HTTP/1.1`,
      httpHeaders: http,
      warcHeaders: { "WARC-Record-ID": id, "WARC-Concurrent-To": concurrentTo },
    },
    body,
  );
  return WARCSerializer.serialize(rec, { gzip: true, digest: DIGEST_OPTS });
}

interface Parsed {
  /** The named-field lines exactly as written, sorted (order is not significant, §4). */
  lines: string[];
  /** A named field as warcio reads it (warcio matches names without case). */
  get(name: string): string | null | undefined;
  statusline: string | undefined;
  http: [string, string][];
  block: Uint8Array;
  payload: Uint8Array;
}

/** Reads one record with warcio twice: raw block (parseHttp off) and HTTP-parsed payload. */
async function parse(bytes: Uint8Array): Promise<Parsed> {
  const raw = await WARCParser.parse([bytes], { parseHttp: false });
  if (!raw) throw new Error("warcio found no record");
  const block = await raw.readFully(false);
  const record = await WARCParser.parse([bytes]);
  if (!record) throw new Error("warcio found no record");
  const payload = await record.readFully(false);
  const text = gunzipSync(bytes).toString("utf8");
  const lines = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
  expect(lines[0]).toBe("WARC/1.1");
  return {
    lines: lines.slice(1).sort(),
    get: (name) => record.warcHeader(name),
    statusline: record.httpHeaders?.statusline,
    http: record.httpHeaders ? [...record.httpHeaders.headers] : [],
    block,
    payload,
  };
}

/** One gzip member: the trailer's ISIZE (RFC 1952 §2.3.1) counts every inflated byte. */
function isOneMember(bytes: Uint8Array): boolean {
  const inflated = gunzipSync(bytes).length;
  return Buffer.from(bytes).readUInt32LE(bytes.length - 4) === inflated % 2 ** 32;
}

/** The checks every record passes: block digest and length, payload digest, one member. */
function expectDigestsVerify(p: Parsed, bytes: Uint8Array): void {
  expect(p.get("WARC-Block-Digest")).toBe(sha256Digest(p.block));
  expect(p.get("Content-Length")).toBe(String(p.block.length));
  if (p.get("WARC-Payload-Digest") && p.get("WARC-Type") !== "revisit") {
    expect(p.get("WARC-Payload-Digest")).toBe(sha256Digest(p.payload));
  }
  expect(isOneMember(bytes)).toBe(true);
  expect(gunzipSync(bytes).toString("latin1").startsWith("WARC/1.1\r\n")).toBe(true);
  expect(gunzipSync(bytes).toString("latin1").endsWith("\r\n\r\n")).toBe(true);
}

const PAGE = `<html><body>${"<tr><td>Council agenda — 5 Nov</td></tr>\n".repeat(400)}</body></html>`;

function pageExchange(): Exchange {
  return exchange("http://127.0.0.2/agendas?year=2026", PAGE, {
    source: "city-council",
    headers: {
      "content-encoding": "gzip",
      "content-length": "1234",
      "transfer-encoding": "chunked",
      etag: '"v1"',
      "set-cookie": "a=1; Path=/\nb=2; Path=/",
      "last-modified": "Thu, 05 Nov 2026 08:00:00 GMT",
    },
  });
}

describe("WARC records written without warcio (P8)", () => {
  it("P8: a response record parses in warcio with the fields, HTTP head and payload warcio's writer gave, and its digests verify", async () => {
    const ex = pageExchange();
    const digest = sha256Digest(ex.response.body);
    const mine = await responseRecord(ex, ID, digest);
    const theirs = await warcioResponse(ex, ID, digest);
    const [a, b] = [await parse(mine), await parse(theirs)];
    expect(a.lines).toEqual(b.lines);
    expect(a.statusline).toBe("HTTP/1.1 200 OK");
    expect(a.http).toEqual(b.http);
    expect(a.http.filter(([k]) => k === "set-cookie")).toEqual([
      ["set-cookie", "a=1; Path=/"],
      ["set-cookie", "b=2; Path=/"],
    ]);
    expect(Buffer.from(a.payload).equals(Buffer.from(ex.response.body))).toBe(true);
    expect(Buffer.from(a.block).equals(Buffer.from(b.block))).toBe(true);
    expect(a.get("WARC-Type")).toBe("response");
    expect(a.get("WARC-Record-ID")).toBe(ID);
    expect(a.get("WARC-Target-URI")).toBe("http://127.0.0.2/agendas?year=2026");
    expect(a.get("Content-Type")).toBe("application/http; msgtype=response");
    expect(a.get("NOR-Original-Content-Encoding")).toBe("gzip");
    expect(a.get("NOR-Original-Transfer-Encoding")).toBe("chunked");
    expect(a.get("NOR-Source")).toBe("city-council");
    expect(a.get("WARC-Payload-Digest")).toBe(digest);
    expectDigestsVerify(a, mine);
  });

  it("P8: a revisit record carries the identical-payload-digest profile and refers-to fields warcio's writer gave, with a headers-only block", async () => {
    const ex = pageExchange();
    const digest = sha256Digest(ex.response.body);
    const orig: Original = { url: "http://127.0.0.2/agendas?year=2026", date: warcDate(1_000) };
    const mine = await responseRecord(ex, ID, digest, orig);
    const [a, b] = [await parse(mine), await parse(await warcioResponse(ex, ID, digest, orig))];
    expect(a.lines).toEqual(b.lines);
    expect(a.http).toEqual(b.http);
    expect(Buffer.from(a.block).equals(Buffer.from(b.block))).toBe(true);
    expect(a.get("WARC-Type")).toBe("revisit");
    expect(a.get("WARC-Profile")).toBe(REVISIT_PROFILE);
    expect(REVISIT_PROFILE).toBe(
      "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
    );
    expect(a.get("WARC-Refers-To-Target-URI")).toBe(orig.url);
    expect(a.get("WARC-Refers-To-Date")).toBe(orig.date);
    expect(a.get("WARC-Payload-Digest")).toBe(digest);
    expect(a.payload.length).toBe(0);
    expectDigestsVerify(a, mine);
  });

  it("P8: a POST request record keeps its body as the payload, linked by WARC-Concurrent-To, as warcio's writer gave it", async () => {
    const ex = exchange("http://127.0.0.2/search.aspx?q=bids", "unused");
    ex.request = {
      method: "POST",
      url: "http://127.0.0.2/search.aspx?q=bids",
      headers: {
        "user-agent": "public-records-check/0.1",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "__VIEWSTATE=abc%3D&year=2026&title=Café",
    };
    const mine = await requestRecord(ex, ID2, ID);
    const [a, b] = [await parse(mine), await parse(await warcioRequest(ex, ID2, ID))];
    expect(a.lines).toEqual(b.lines);
    expect(a.statusline).toBe("POST /search.aspx?q=bids HTTP/1.1");
    expect(a.http).toEqual(b.http);
    expect(Buffer.from(a.block).equals(Buffer.from(b.block))).toBe(true);
    expect(a.http).toContainEqual(["host", "127.0.0.2"]);
    expect(new TextDecoder().decode(a.payload)).toBe("__VIEWSTATE=abc%3D&year=2026&title=Café");
    expect(a.get("WARC-Type")).toBe("request");
    expect(a.get("WARC-Concurrent-To")).toBe(ID);
    expect(a.get("Content-Type")).toBe("application/http; msgtype=request");
    expectDigestsVerify(a, mine);
    // A bodiless GET: an empty payload, its digest the empty string's.
    const get = await parse(await requestRecord(exchange("http://127.0.0.2/a", "x"), ID2, ID));
    expect(get.payload.length).toBe(0);
    expect(get.get("WARC-Payload-Digest")).toBe(sha256Digest(new Uint8Array()));
  });

  it("P8: a warcinfo record gives warcio's fields plus a block digest, and its block is application/warc-fields", async () => {
    const mine = await warcinfoRecord("NOR-00001-20261105080000.warc.gz", 5_000, ID);
    const theirs = await WARCSerializer.serialize(
      WARCRecord.createWARCInfo(
        {
          filename: "NOR-00001-20261105080000.warc.gz",
          date: warcDate(5_000),
          warcVersion: WARC_1_1,
          warcHeaders: { "WARC-Record-ID": ID },
        },
        { software: "x" },
      ),
      { gzip: true, digest: DIGEST_OPTS },
    );
    const [a, b] = [await parse(mine), await parse(theirs)];
    const names = (p: Parsed) => p.lines.map((l) => l.slice(0, l.indexOf(":")));
    expect(names(a)).toEqual([...names(b), "WARC-Block-Digest"].sort());
    expect(a.get("WARC-Type")).toBe("warcinfo");
    expect(a.get("WARC-Record-ID")).toBe(ID);
    expect(a.get("WARC-Filename")).toBe("NOR-00001-20261105080000.warc.gz");
    expect(a.get("WARC-Date")).toBe(new Date(5_000).toISOString());
    expect(a.get("Content-Type")).toBe("application/warc-fields");
    expect(new TextDecoder().decode(a.block)).toMatch(
      /^software: public-records-check \(New on Record\)\r\nformat: WARC File Format 1\.1\r\n/,
    );
    expectDigestsVerify(a, mine);
  });

  it("P8, P14: a record over a megabyte (deflated off the event loop) parses, verifies and reads back the same", async () => {
    const body = new Uint8Array(randomBytes(3 << 19));
    const ex = exchange("http://127.0.0.2/packet.pdf", body, {
      headers: { "content-type": "application/pdf" },
    });
    const digest = sha256Digest(body);
    const mine = await responseRecord(ex, ID, digest);
    const a = await parse(mine);
    expect(Buffer.from(a.payload).equals(Buffer.from(body))).toBe(true);
    expectDigestsVerify(a, mine);
    expect(mine.length).toBeGreaterThan(1 << 20);
  });

  it("P8: a line break in a header value never forges a field, and a bad field name is a bug", async () => {
    const ex = exchange("http://127.0.0.2/x", "b", {
      source: "s\r\nWARC-Type: metadata",
      headers: { "x-note": "a\r\nWARC-Evil: 1" },
    });
    const p = await parse(await responseRecord(ex, ID, sha256Digest(ex.response.body)));
    expect(p.lines.filter((l) => l.startsWith("WARC-Type:"))).toEqual(["WARC-Type: response"]);
    expect(p.get("NOR-Source")).toBe("s WARC-Type: metadata");
    expect(p.http).toContainEqual(["x-note", "a WARC-Evil: 1"]);
    const bad = exchange("http://127.0.0.2/x", "b", { headers: { "x bad": "1" } });
    await expect(responseRecord(bad, ID, "d")).rejects.toThrow(NorError);
  });
});

describe("reading a record back by hand, as warcio reads it (P8)", () => {
  /** warcio's reading of one member: what read.ts gave for every record before. */
  async function viaWarcio(bytes: Uint8Array) {
    const rec = await WARCParser.parse([bytes]);
    const payload = await rec!.readFully(false);
    return {
      type: rec!.warcType,
      status: Number(rec!.httpHeaders?.statusCode),
      headers: headersOf(rec!),
      setCookies: setCookiesOf(rec!),
      payload: Buffer.from(payload),
    };
  }

  it("P8: responses and revisits from either writer (set-cookie twice, non-ASCII, a megabyte) read by hand as warcio reads them, non-ASCII header values as they were written", async () => {
    const page = pageExchange();
    const odd = exchange("http://127.0.0.2/zoning", "Zoning — Bärbel's café", {
      headers: { "x-note": "Prüfung — 5 Nov", "content-type": "text/plain; charset=utf-8" },
      status: 404,
    });
    const big = exchange("http://127.0.0.2/packet.pdf", new Uint8Array(randomBytes(3 << 19)), {
      headers: { "content-type": "application/pdf" },
    });
    const records: [string, Uint8Array][] = [];
    for (const ex of [page, odd, big]) {
      const digest = sha256Digest(ex.response.body);
      records.push(["response", await responseRecord(ex, ID, digest)]);
      records.push(["warcio response", await warcioResponse(ex, ID, digest)]);
      const was = { url: ex.response.url, date: warcDate(0) };
      records.push(["revisit", await responseRecord(ex, ID, digest, was)]);
      records.push(["warcio revisit", await warcioResponse(ex, ID, digest, was)]);
    }
    for (const [what, bytes] of records) {
      const hand = parseHttpRecord(bytes);
      expect(hand, what).toBeDefined();
      const w = await viaWarcio(bytes);
      // Both writers encode header values as UTF-8; read by hand they come back as written,
      // where warcio reads them as Latin-1 (mojibake). Every ASCII header reads the same.
      if (hand!.headers["x-note"] !== undefined) {
        expect(hand!.headers["x-note"], what).toBe("Prüfung — 5 Nov");
        delete hand!.headers["x-note"];
        delete w.headers["x-note"];
      }
      expect(Buffer.from(hand!.payload).equals(w.payload), what).toBe(true);
      expect({ ...hand!, payload: hand!.payload.length }, what).toEqual({
        ...w,
        payload: w.payload.length,
      });
    }
    // Not an HTTP response or revisit (a request, a warcinfo): left to warcio.
    expect(parseHttpRecord(await requestRecord(page, ID2, ID))).toBeUndefined();
    expect(parseHttpRecord(await warcinfoRecord("x.warc.gz", 0, ID2))).toBeUndefined();
    // A damaged member does not inflate: an error, never a wrong body.
    const mine = Buffer.from(await responseRecord(page, ID, sha256Digest(page.response.body)));
    mine[Math.floor(mine.length / 2)]! ^= 0x01;
    expect(() => parseHttpRecord(mine)).toThrow();
  });
});

describe("a revisit decided from the index, without reading the original back (P8)", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: the writer never opens the original to write a revisit; warcio reads the revisit back as the original's body", async () => {
    const url = "http://127.0.0.2/minutes";
    let a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(url, PAGE, { at: 1_000 }));
    await a.close();
    // While the revisit is written, the original's file holds garbage of the same size: a
    // writer that read the original back would find it damaged and store the body in full.
    const caps0 = await capturesOf(t.store.db, url);
    const path = join(t.archiveDir, caps0[0]!.file);
    const original = readFileSync(path);
    writeFileSync(path, Buffer.alloc(original.length, 0x55));
    a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(url, PAGE, { at: 2_000 }));
    await a.close();
    writeFileSync(path, original);
    const caps = await capturesOf(t.store.db, url);
    expect(caps.map((c) => c.recordType)).toEqual(["response", "revisit"]);
    expect(caps[1]!.refersTo?.recordId).toBe(caps[0]!.recordId);
    // warcio parses the revisit record with its profile, and the pair reads back whole.
    const bytes = readFileSync(join(t.archiveDir, caps[1]!.file));
    const rec = await WARCParser.parse([
      bytes.subarray(caps[1]!.offset, caps[1]!.offset + caps[1]!.length),
    ]);
    expect(rec?.warcType).toBe("revisit");
    expect(rec?.warcHeader("WARC-Profile")).toBe(REVISIT_PROFILE);
    expect(rec?.warcHeader("WARC-Payload-Digest")).toBe(
      sha256Digest(new TextEncoder().encode(PAGE)),
    );
    const back = await a.bodyOf({ url, method: "GET", fetchedAt: 2_000 });
    expect(back && new TextDecoder().decode(back)).toBe(PAGE);
  });

  for (const damage of ["deleted", "cut short"] as const) {
    it(`P8: an original whose file was ${damage} is not referred to; the same body is stored again in full`, async () => {
      const url = "http://127.0.0.2/minutes";
      // One file per exchange, so the original's file can be damaged while this writer runs.
      const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, rotateBytes: 1 });
      await a.write(exchange(url, PAGE, { at: 1_000 }));
      await a.write(exchange("http://127.0.0.2/other", "x", { at: 1_500 }));
      const [first] = await capturesOf(t.store.db, url);
      const path = join(t.archiveDir, first!.file);
      expect(a.currentFile).not.toBe(first!.file);
      if (damage === "deleted") rmSync(path);
      else truncateSync(path, first!.offset + Math.floor(first!.length / 2));
      await a.write(exchange(url, PAGE, { at: 2_000 }));
      await a.close();
      const caps = await capturesOf(t.store.db, url);
      expect(caps.map((c) => c.recordType)).toEqual(["response", "response"]);
      const back = await a.bodyOf({ url, method: "GET", fetchedAt: 2_000 });
      expect(back && new TextDecoder().decode(back)).toBe(PAGE);
    });
  }

  it("P8: an original that a read found damaged is not referred to; the same body is stored again in full, and the next revisit refers to the new copy", async () => {
    const url = "http://127.0.0.2/minutes";
    let a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(url, PAGE, { at: 1_000 }));
    await a.write(exchange(url, PAGE, { at: 2_000 }));
    await a.close();
    let caps = await capturesOf(t.store.db, url);
    expect(caps.map((c) => c.recordType)).toEqual(["response", "revisit"]);
    // One bit flipped inside the original's gzip member (its CRC no longer matches).
    const path = join(t.archiveDir, caps[0]!.file);
    const bytes = readFileSync(path);
    bytes[caps[0]!.offset + Math.floor(caps[0]!.length / 2)]! ^= 0x01;
    writeFileSync(path, bytes);
    a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    // The night reads the copy (a 304's stored copy, a replay) and finds it damaged.
    expect(await a.bodyOf({ url, method: "GET", fetchedAt: 2_000 })).toBeUndefined();
    await a.write(exchange(url, PAGE, { at: 3_000 }));
    await a.write(exchange(url, PAGE, { at: 4_000 }));
    await a.close();
    caps = await capturesOf(t.store.db, url);
    expect(caps.map((c) => c.recordType)).toEqual(["response", "revisit", "response", "revisit"]);
    expect(caps[3]!.refersTo?.recordId).toBe(caps[2]!.recordId);
    const back = await a.bodyOf({ url, method: "GET", fetchedAt: 4_000 });
    expect(back && new TextDecoder().decode(back)).toBe(PAGE);
  });
});
