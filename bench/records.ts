/**
 * The cost of one exchange's WARC records (P8) in CPU µs per record, at 1, 10, 60 and 500 kB
 * bodies, against the floor measured in the same run: node:zlib gzipSync + node:crypto sha256
 * of the same body bytes. Beside it, warcio's WARCSerializer building the same records (the
 * writer this one replaced), and a revisit (headers only; the original is not read back).
 * CPU time (process.cpuUsage), not wall time: the machines here are shared.
 */
import { createHash, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { WARC_1_1, WARCParser, WARCRecord, WARCSerializer } from "warcio";
import { DIGEST_OPTS, sha256Digest } from "../src/store/archive/digest.js";
import {
  type Exchange,
  requestRecord,
  responseRecord,
  statusLine,
  storedHttpHeaders,
  warcDate,
} from "../src/store/archive/records.js";

/** A records page: repetitive HTML with some unique text, so it compresses like a real one. */
function page(bytes: number): Uint8Array {
  const row = (n: number) =>
    `<tr><td><a href="/AgendaCenter/ViewFile/Agenda/_110${n}">Council agenda ${n}</a></td><td>2026-11-0${n % 9}</td></tr>\n`;
  let html = "<html><body><h1>Agendas</h1><table>\n";
  for (let n = 0; html.length < bytes - 200; n++) html += row(n);
  return new TextEncoder().encode(
    `${html}</table>${randomBytes(64).toString("hex")}</body></html>`,
  );
}

function ex(body: Uint8Array): Exchange {
  const url = "http://source.example/AgendaCenter";
  return {
    request: { method: "GET", url, headers: { "user-agent": "public-records-check/0.1" } },
    response: {
      status: 200,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-encoding": "gzip",
        etag: '"abc"',
        "last-modified": "Thu, 05 Nov 2026 08:00:00 GMT",
      },
      url,
      body,
      chain: [url],
    },
    fetchedAt: Date.UTC(2026, 10, 5, 8),
    purpose: "page",
    source: "city-council",
  };
}

/** The previous writer, warcio's, for the same response + request records. */
async function warcioPair(e: Exchange, digest: string): Promise<number> {
  const { http, original } = storedHttpHeaders(e.response.headers, e.response.body.length);
  const resp = WARCRecord.create(
    {
      url: e.response.url,
      date: warcDate(e.fetchedAt),
      type: "response",
      warcVersion: WARC_1_1,
      statusline: statusLine(e.response.status),
      httpHeaders: http,
      warcHeaders: {
        "WARC-Record-ID": "<urn:uuid:1>",
        "WARC-Payload-Digest": digest,
        "NOR-Purpose": e.purpose,
        ...original,
      },
    },
    [e.response.body],
  );
  const req = WARCRecord.create({
    url: e.request.url,
    date: warcDate(e.fetchedAt),
    type: "request",
    warcVersion: WARC_1_1,
    statusline: "GET /AgendaCenter HTTP/1.1",
    httpHeaders: [["host", "source.example"], ...Object.entries(e.request.headers)],
    warcHeaders: { "WARC-Record-ID": "<urn:uuid:2>", "WARC-Concurrent-To": "<urn:uuid:1>" },
  });
  const opts = { gzip: true, digest: DIGEST_OPTS };
  const a = await WARCSerializer.serialize(resp, opts);
  const b = await WARCSerializer.serialize(req, opts);
  return a.length + b.length;
}

/** CPU µs per call of `fn`, the median of `rounds` rounds of `n` calls. */
async function cpuMicros(
  n: number,
  rounds: number,
  fn: () => unknown | Promise<unknown>,
): Promise<number[]> {
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn();
    const d = process.cpuUsage(t0);
    per.push((d.user + d.system) / n);
  }
  return per;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<string> {
  const sizes = [1_000, 10_000, 60_000, 500_000];
  const rows: string[] = [];
  for (const size of sizes) {
    const body = page(size);
    const e = ex(body);
    const digest = sha256Digest(body);
    const stored = await responseRecord(e, "<urn:uuid:1>", digest);
    // About 50 ms of floor work per round at any size (warcio takes far longer at 1 kB).
    const n = Math.max(10, Math.round(600_000 / size));
    const variants: [string, () => unknown | Promise<unknown>][] = [
      ["floor", () => [gzipSync(body), createHash("sha256").update(body).digest()]],
      [
        "writer",
        async () => [
          await responseRecord(e, "<urn:uuid:1>", sha256Digest(body)),
          await requestRecord(e, "<urn:uuid:2>", "<urn:uuid:1>"),
        ],
      ],
      ["request", () => requestRecord(e, "<urn:uuid:2>", "<urn:uuid:1>")],
      [
        "revisit",
        async () => [
          await responseRecord(e, "<urn:uuid:3>", sha256Digest(body), {
            url: e.response.url,
            date: warcDate(0),
          }),
          await requestRecord(e, "<urn:uuid:4>", "<urn:uuid:3>"),
        ],
      ],
      ["warcio", () => warcioPair(e, sha256Digest(body))],
      [
        "warcio read-back",
        async () => {
          const rec = await WARCParser.parse([stored]);
          return sha256Digest(await rec!.readFully(false));
        },
      ],
    ];
    // Warm up, then interleave the variants round by round so drift hits them all alike.
    for (const [, fn] of variants) await cpuMicros(3, 1, fn);
    const got = new Map<string, number[]>(variants.map(([k]) => [k, []]));
    for (let round = 0; round < 5; round++) {
      for (const [k, fn] of variants) got.get(k)!.push(...(await cpuMicros(n, 1, fn)));
    }
    const m = (k: string) => median(got.get(k)!);
    const us = (k: string) => m(k).toFixed(0);
    rows.push(
      `| ${(body.length / 1000).toFixed(0)} kB | ${us("floor")} | ${us("writer")} | **${(m("writer") / m("floor")).toFixed(2)}×** | ${us("request")} | ${us("revisit")} | ${us("warcio")} (${(m("warcio") / m("floor")).toFixed(1)}×) | ${us("warcio read-back")} |`,
    );
  }
  return [
    "## WARC records per exchange",
    "",
    "CPU µs per exchange (median of 5 rounds). **floor**: gzipSync + sha256 of the body bytes.",
    "**writer**: the response record (payload digest, block digest, gzip member) and its",
    "request record, as `WarcArchive` builds them. **revisit**: the revisit record and its",
    "request (the original is not read back: the index holds its digest).",
    "**warcio**: the same two records through warcio's WARCSerializer (the writer before).",
    "**warcio read-back**: the original's payload re-read through warcio's parser (before).",
    "",
    "| body | floor | writer | writer / floor | request alone | revisit | warcio (/ floor) | warcio read-back |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
