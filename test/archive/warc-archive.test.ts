import { randomBytes } from "node:crypto";
import { createReadStream, readFileSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WARCParser } from "warcio";
import { capturesOf, latestCapture, validatorsFor } from "../../src/store/archive/captures.js";
import { sha256Digest } from "../../src/store/archive/digest.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { verifyArchive } from "../../src/store/archive/verify.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

async function allRecords(path: string) {
  const out: { type: string; uri: string | null | undefined; headers: Map<string, string> }[] = [];
  for await (const r of WARCParser.iterRecords(createReadStream(path))) {
    await r.readFully(false);
    out.push({
      type: r.warcType,
      uri: r.warcTargetURI,
      headers: r.warcHeaders.headers as Map<string, string>,
    });
  }
  return out;
}

describe("WarcArchive (P8)", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("P8: answers arriving together share one pwritev, one fdatasync and one index insert; each resolves with its bytes and row durable, and every record reads back", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    // The first write opens a file; count the syncs of the writes that arrive together after it.
    await a.write(exchange("http://127.0.0.2/first", "first", { at: 1_000 }));
    // FileHandle's prototype, from a handle opened for it alone and closed at once (one left
    // to the garbage collector is closed there, with a warning).
    const probe = await open(join(t.archiveDir, a.currentFile!), "r");
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const real = proto.datasync;
    let syncs = 0;
    proto.datasync = function (this: unknown) {
      syncs++;
      return real.call(this);
    };
    try {
      const urls = Array.from({ length: 20 }, (_, i) => `http://127.0.0.${2 + (i % 5)}/p/${i}`);
      const done: string[] = [];
      await Promise.all(
        urls.map((u, i) =>
          a.write(exchange(u, `body ${i}`, { at: 2_000 + i })).then(async () => {
            // Resolved: its row is committed (and so its bytes were synced before it).
            expect(await latestCapture(t.store.db, u)).toBeDefined();
            done.push(u);
          }),
        ),
      );
      expect(done.sort()).toEqual([...urls].sort());
      expect(syncs).toBeGreaterThan(0);
      expect(syncs).toBeLessThan(urls.length);
    } finally {
      proto.datasync = real;
    }
    await a.close();
    for (let i = 0; i < 20; i++) {
      const c = await latestCapture(t.store.db, `http://127.0.0.${2 + (i % 5)}/p/${i}`);
      const back = await readCapture(t.archiveDir, c!);
      expect(new TextDecoder().decode(back.body)).toBe(`body ${i}`);
    }
    const report = await verifyArchive(t.archiveDir, t.store.db);
    expect(report.problems).toEqual([]);
    expect(report.records).toBe(1 + 2 * 21);
  });

  it("P8: a batch that rotates files makes each file durable before closing it, and one exchange that cannot be written fails alone", async () => {
    const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, rotateBytes: 1 });
    const bad = exchange("http://127.0.0.2/bad", "x", { at: 500 });
    (bad.request.headers as Record<string, string>)["bad name"] = "v";
    const results = await Promise.allSettled([
      ...Array.from({ length: 6 }, (_, i) =>
        a.write(exchange(`http://127.0.0.2/r/${i}`, `page ${i}`, { at: 1_000 + i })),
      ),
      a.write(bad),
      a.write(exchange("http://127.0.0.2/after", "after", { at: 2_000 })),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      ...Array(6).fill("fulfilled"),
      "rejected",
      "fulfilled",
    ]);
    await a.close();
    // One exchange a file (rotateBytes 1), each file whole and indexed.
    expect(listWarcFiles(t.archiveDir)).toHaveLength(7);
    const report = await verifyArchive(t.archiveDir, t.store.db);
    expect(report.problems).toEqual([]);
    for (let i = 0; i < 6; i++) {
      const c = await latestCapture(t.store.db, `http://127.0.0.2/r/${i}`);
      expect(new TextDecoder().decode((await readCapture(t.archiveDir, c!)).body)).toBe(
        `page ${i}`,
      );
    }
    expect(await latestCapture(t.store.db, "http://127.0.0.2/bad")).toBeUndefined();
  });

  it("P8: a file lost from the disk keeps its name: a new file never takes a name the index still names", async () => {
    // The same second throughout (a virtual clock): only the sequence number tells files apart.
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/agendas", "<p>one</p>"));
    await a.close();
    const [lost] = listWarcFiles(t.archiveDir);
    rmSync(join(t.archiveDir, lost!));
    const b = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await b.write(exchange("http://127.0.0.2/agendas", "<p>two</p>"));
    await b.close();
    const [now] = listWarcFiles(t.archiveDir);
    expect(now).not.toBe(lost);
    // Opening again checks every file against the index: the new one is whole.
    const c = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    expect(c.recoveredBytes).toBe(0);
    await c.close();
  });

  it("P8: writes a WARC 1.1 response and request record per exchange, each its own gzip member, that warcio reads back", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/agendas", "<p>Agenda</p>", { source: "s1" }));
    await a.close();
    const [file] = listWarcFiles(t.archiveDir);
    const recs = await allRecords(join(t.archiveDir, file!));
    expect(recs.map((r) => r.type)).toEqual(["warcinfo", "response", "request"]);
    const resp = recs[1]!.headers;
    expect(readFileSync(join(t.archiveDir, file!)).subarray(0, 2)).toEqual(
      Buffer.from([0x1f, 0x8b]),
    );
    expect(resp.get("WARC-Target-URI")).toBe("http://127.0.0.2/agendas");
    expect(resp.get("WARC-Date")).toBe("2026-11-05T08:00:00.000Z");
    expect(resp.get("WARC-Payload-Digest")).toBe(
      sha256Digest(new TextEncoder().encode("<p>Agenda</p>")),
    );
    expect(resp.get("WARC-Block-Digest")).toMatch(/^sha256:[A-Z2-7]{52}====$/);
    expect(recs[2]!.headers.get("WARC-Concurrent-To")).toBe(resp.get("WARC-Record-ID"));
    // One gzip member per record: every indexed offset starts a member.
    const c = (await capturesOf(t.store.db, "http://127.0.0.2/agendas"))[0]!;
    const bytes = readFileSync(join(t.archiveDir, c.file));
    expect([bytes[c.offset], bytes[c.offset + 1]]).toEqual([0x1f, 0x8b]);
    expect([bytes[c.requestOffset!], bytes[c.requestOffset! + 1]]).toEqual([0x1f, 0x8b]);
  });

  it("P8: stores the decoded body with Content-Encoding dropped and the original noted", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const body = "<ul><li>Bid 1</li></ul>";
    await a.write(
      exchange("http://127.0.0.2/bids", body, {
        headers: {
          "content-encoding": "gzip",
          "content-length": String(gzipSync(body).length),
          etag: '"v1"',
        },
      }),
    );
    await a.close();
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/bids"))!;
    const got = await readCapture(t.archiveDir, c);
    expect(new TextDecoder().decode(got.body)).toBe(body);
    expect(got.status).toBe(200);
    expect(got.headers["content-encoding"]).toBeUndefined();
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(got.headers["etag"]).toBe('"v1"');
    const recs = await allRecords(join(t.archiveDir, c.file));
    expect(recs[1]!.headers.get("NOR-Original-Content-Encoding")).toBe("gzip");
  });

  it("P8: a payload identical to the last capture of the URL becomes a revisit, and reads back as the original body", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const url = "http://127.0.0.2/minutes";
    const t0 = Date.UTC(2026, 10, 5, 8);
    await a.write(exchange(url, "same", { at: t0, headers: { etag: '"a"' } }));
    await a.write(exchange(url, "same", { at: t0 + 86_400_000, headers: { etag: '"a"' } }));
    await a.write(exchange(url, "same", { at: t0 + 2 * 86_400_000 }));
    await a.write(exchange(url, "changed", { at: t0 + 3 * 86_400_000 }));
    await a.close();
    const caps = await capturesOf(t.store.db, url);
    expect(caps.map((c) => c.recordType)).toEqual(["response", "revisit", "revisit", "response"]);
    // A revisit of a revisit still names the one record that holds the payload.
    expect(caps[2]!.refersTo?.recordId).toBe(caps[0]!.recordId);
    const recs = (await allRecords(join(t.archiveDir, caps[0]!.file))).filter(
      (r) => r.type === "revisit",
    );
    expect(recs[1]!.headers.get("WARC-Profile")).toBe(
      "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
    );
    expect(recs[1]!.headers.get("WARC-Refers-To-Target-URI")).toBe(url);
    expect(recs[1]!.headers.get("WARC-Refers-To-Date")).toBe(new Date(t0).toISOString());
    const back = await readCapture(t.archiveDir, caps[2]!);
    expect(new TextDecoder().decode(back.body)).toBe("same");
    expect(caps[1]!.length).toBeLessThan(caps[0]!.length + 200);
  });

  it("P12: validatorsFor gives the ETag and Last-Modified of the latest capture with a body", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const url = "http://127.0.0.2/feed.xml";
    expect(await validatorsFor(t.store.db, url)).toBeUndefined();
    await a.write(exchange(url, "<rss/>", { at: 1_000, headers: { etag: '"1"' } }));
    await a.write(
      exchange(url, "<rss>2</rss>", {
        at: 2_000,
        headers: { etag: '"2"', "last-modified": "Thu, 05 Nov 2026 08:00:00 GMT" },
      }),
    );
    await a.close();
    expect(await validatorsFor(t.store.db, url)).toEqual({
      etag: '"2"',
      lastModified: "Thu, 05 Nov 2026 08:00:00 GMT",
    });
    expect((await latestCapture(t.store.db, url, { at: 1_500 }))?.etag).toBe('"1"');
  });

  it("P12: validatorsFor and the latest GET copy skip a later POST answer at the same URL", async () => {
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const url = "http://127.0.0.2/Search.aspx";
    await a.write(exchange(url, "<form>", { at: 1_000, headers: { etag: '"form"' } }));
    // The form posts back to its own URL; that answer is not the GET's representation.
    const post = exchange(url, "<form><table>", { at: 2_000, headers: { etag: '"post"' } });
    post.request.method = "POST";
    post.request.body = "a=1";
    await a.write(post);
    await a.close();
    expect(await validatorsFor(t.store.db, url)).toEqual({ etag: '"form"' });
    expect((await latestCapture(t.store.db, url))?.etag).toBe('"post"');
    const get = (await latestCapture(t.store.db, url, { withBody: true, method: "GET" }))!;
    expect(new TextDecoder().decode((await readCapture(t.archiveDir, get)).body)).toBe("<form>");
  });

  it("P8: rotates files at the configured size, each file starting with its warcinfo", async () => {
    const a = await WarcArchive.open(t.archiveDir, { ...t.archiveOptions, rotateBytes: 1_000_000 });
    // Incompressible, so each record's gzip member is about 300 kB.
    const noise = new Uint8Array(randomBytes(300_000));
    for (let i = 0; i < 8; i++) {
      noise[0] = i;
      await a.write(
        exchange(`http://127.0.0.2/file${i}.pdf`, noise, {
          headers: { "content-type": "application/pdf" },
        }),
      );
    }
    await a.close();
    const files = listWarcFiles(t.archiveDir);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      expect(statSync(join(t.archiveDir, f)).size).toBeLessThanOrEqual(1_000_000);
      expect((await allRecords(join(t.archiveDir, f)))[0]!.type).toBe("warcinfo");
    }
    const c = (await latestCapture(t.store.db, "http://127.0.0.2/file7.pdf"))!;
    expect((await readCapture(t.archiveDir, c)).body[0]).toBe(7);
  });
});
