/**
 * The archive (P8), per page at 1, 10, 60 and 500 kB: `WarcArchive.write` (a response and a
 * request record, gzip, digests, one pwritev, fdatasync, one capture row in SQLite with
 * synchronous=FULL) against plain fs appending the same body bytes with an fdatasync each, in
 * the same run, interleaved in rounds so drift on this shared machine hits both alike. Wall
 * time and CPU time (process.cpuUsage) apart: the wall is mostly waiting for the disk (two
 * syncs against one), the CPU is the writer's own work. Then revisits (the same body again:
 * headers only, decided from the index), and the bytes a night adds when 95% of pages did not
 * change.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readSync, rmSync, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../src/clock.js";
import { randomIds } from "../src/ids.js";
import { type Capture, latestCapture } from "../src/store/archive/captures.js";
import { sha256Digest } from "../src/store/archive/digest.js";
import { listWarcFiles } from "../src/store/archive/files.js";
import { OpenFiles, readCapture } from "../src/store/archive/read.js";
import type { Exchange } from "../src/store/archive/records.js";
import { WarcArchive } from "../src/store/archive/warc-archive.js";
import { type Db, openStore } from "../src/store/db.js";

/** A records page: repetitive HTML with some unique text, so it compresses like a real one. */
function page(i: number, version: number, bytes: number): Uint8Array {
  const row = (n: number) =>
    `<tr><td><a href="/AgendaCenter/ViewFile/Agenda/_110${n}">Council agenda ${n} v${version}</a></td><td>2026-11-0${n % 9}</td></tr>\n`;
  let html = `<html><body><h1>Source ${i}</h1><table>\n`;
  for (let n = 0; html.length < bytes - 200; n++) html += row(n + i);
  return new TextEncoder().encode(
    `${html}</table>${randomBytes(64).toString("hex")}</body></html>`,
  );
}

function ex(url: string, body: Uint8Array, at: number): Exchange {
  return {
    request: { method: "GET", url, headers: { "user-agent": "public-records-check/0.1" } },
    response: {
      status: 200,
      headers: { "content-type": "text/html", etag: `"${at}"` },
      url,
      body,
      chain: [url],
    },
    fetchedAt: at,
    purpose: "page",
    source: url,
  };
}

function dirBytes(dir: string): number {
  return listWarcFiles(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

interface Tally {
  wallMs: number;
  cpuUs: number;
  n: number;
}

async function timed(t: Tally, n: number, fn: () => Promise<void>): Promise<void> {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  await fn();
  t.wallMs += performance.now() - w0;
  const c = process.cpuUsage(c0);
  t.cpuUs += c.user + c.system;
  t.n += n;
}

const zero = (): Tally => ({ wallMs: 0, cpuUs: 0, n: 0 });
const wall = (t: Tally) => t.wallMs / t.n;
const cpu = (t: Tally) => t.cpuUs / 1000 / t.n;

/** Each page's copy read back 5 times, interleaved in rounds with the bare reads of its bytes. */
async function readBack(dir: string, db: Db, urls: readonly string[], kb: number): Promise<string> {
  const caps: Capture[] = [];
  for (const u of urls) {
    const c = await latestCapture(db, u, { withBody: true, method: "GET" });
    if (c) caps.push(c);
  }
  const files = new OpenFiles();
  const handles = new Map<string, FileHandle>();
  const t = { copy: zero(), pool: zero(), sync: zero() };
  try {
    for (const c of caps) {
      if (!handles.has(c.file)) handles.set(c.file, await open(join(dir, c.file), "r"));
      await readCapture(dir, c, files); // warm-up: the file opened, the code compiled
    }
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < caps.length; i += 20) {
        const chunk = caps.slice(i, i + 20);
        await timed(t.copy, chunk.length, async () => {
          for (const c of chunk) {
            const back = await readCapture(dir, c, files);
            if (sha256Digest(back.body) !== c.payloadDigest) throw new Error("digest");
          }
        });
        await timed(t.pool, chunk.length, async () => {
          for (const c of chunk) {
            const fh = handles.get(c.file) as FileHandle;
            await fh.read(new Uint8Array(c.length), 0, c.length, c.offset);
          }
        });
        await timed(t.sync, chunk.length, async () => {
          for (const c of chunk) {
            const fh = handles.get(c.file) as FileHandle;
            readSync(fh.fd, new Uint8Array(c.length), 0, c.length, c.offset);
          }
        });
      }
    }
  } finally {
    await files.close();
    for (const fh of handles.values()) await fh.close();
  }
  const cell = (x: Tally) => `${(wall(x) * 1000).toFixed(1)} / ${(cpu(x) * 1000).toFixed(1)}`;
  return `| ${kb.toFixed(0)} kB | ${t.copy.n} | ${cell(t.copy)} | ${cell(t.pool)} | ${cell(t.sync)} |`;
}

export async function run(): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), "nor-bench-archive-"));
  try {
    const store = await openStore({ kind: "sqlite", dir: join(data, "store") });
    const dir = join(data, "archive");
    const a = await WarcArchive.open(dir, { db: store.db, clock: systemClock, ids: randomIds });
    const plain: FileHandle = await open(join(data, "plain.bin"), "w");
    const rows: string[] = [];
    const reads: string[] = [];
    let seq = 0;
    for (const size of [1_000, 10_000, 60_000, 500_000]) {
      const pages = size >= 500_000 ? 40 : 200;
      const bodies = Array.from({ length: pages }, (_, i) => page(i, 1, size));
      const urls = bodies.map((_, i) => `http://source-${size}-${i}.example/agendas`);
      const p = zero();
      const w = zero();
      const r = zero();
      const g = zero();
      // Warm-up (not counted): the code paths and the file.
      await a.write(ex(`http://warm-${size}.example/`, bodies[0] as Uint8Array, ++seq));
      const ROUND = 10;
      for (let i = 0; i < pages; i += ROUND) {
        const chunk = bodies.slice(i, i + ROUND);
        await timed(p, chunk.length, async () => {
          for (const b of chunk) {
            await plain.write(b);
            await plain.datasync();
          }
        });
        await timed(w, chunk.length, async () => {
          for (let j = 0; j < chunk.length; j++)
            await a.write(ex(urls[i + j] as string, chunk[j] as Uint8Array, ++seq));
        });
      }
      // The same pages written 16 at once (as a night's lanes hand them over): one batch.
      for (let i = 0; i < pages; i += 16) {
        const chunk = bodies.slice(i, i + 16);
        await timed(g, chunk.length, async () => {
          await Promise.all(
            chunk.map((b, j) => a.write(ex(`${urls[i + j] as string}?together`, b, ++seq))),
          );
        });
      }
      // The same bodies again: revisits.
      for (let i = 0; i < pages; i += ROUND) {
        await timed(r, Math.min(ROUND, pages - i), async () => {
          for (let j = i; j < Math.min(pages, i + ROUND); j++)
            await a.write(ex(urls[j] as string, bodies[j] as Uint8Array, ++seq));
        });
      }
      const kb = (bodies[0] as Uint8Array).length / 1000;
      reads.push(await readBack(dir, store.db, urls, kb));
      rows.push(
        `| ${kb.toFixed(0)} kB | ${pages} | ${wall(p).toFixed(2)} / ${cpu(p).toFixed(3)} | ${wall(w).toFixed(2)} / ${cpu(w).toFixed(3)} | **${(wall(w) / wall(p)).toFixed(2)}×** | **${(cpu(w) / cpu(p)).toFixed(1)}×** | ${wall(g).toFixed(2)} / ${cpu(g).toFixed(3)} | ${wall(r).toFixed(2)} / ${cpu(r).toFixed(3)} |`,
      );
    }
    await plain.close();

    // A night of 400 pages of 60 kB, then one where 95% did not change.
    const N = 400;
    const bodies = Array.from({ length: N }, (_, i) => page(i, 1, 60_000));
    const before = dirBytes(dir);
    for (let i = 0; i < N; i++)
      await a.write(ex(`http://night-${i}.example/agendas`, bodies[i] as Uint8Array, 1e9 + i));
    const night1 = dirBytes(dir) - before;
    let responses = 0;
    let revisits = 0;
    for (let i = 0; i < N; i++) {
      const k = i % 40;
      if (k < 2) {
        responses += 1;
        await a.write(ex(`http://night-${i}.example/agendas`, page(i, 2, 60_000), 2e9 + i));
      } else if (k < 21) {
        revisits += 1;
        await a.write(ex(`http://night-${i}.example/agendas`, bodies[i] as Uint8Array, 2e9 + i));
      }
    }
    const night2 = dirBytes(dir) - before - night1;
    await a.close();
    await store.close();
    const mb = (n: number) => (n / 1e6).toFixed(1);
    return [
      "## The archive, per page",
      "",
      "Per page: wall ms / CPU ms. **plain**: the body bytes appended to one file, fdatasync after",
      "each. **archive**: `WarcArchive.write` of the same body: WARC 1.1 response + request records",
      "(each its own gzip member), two sha256 digests, one pwritev, fdatasync, one capture row",
      "(SQLite, synchronous=FULL: its own fsync). **revisit**: the same body again, later: headers",
      "only, the original not read back (its digest is in the index). Interleaved in rounds of 10.",
      "**16 at once**: the same pages handed over together, as a night's lanes do: one batch, one",
      "pwritev, one fdatasync, one insert of 16 rows.",
      "",
      "| body | pages | plain (wall / CPU) | archive (wall / CPU) | archive / plain, wall | archive / plain, CPU | archive, 16 at once (wall / CPU) | revisit (wall / CPU) |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "The wall ratio is about two syncs (the WARC file and the index row) against one, and swings",
      "with the disk; the CPU ratio is the writer's own work (gzip, digests, the index insert)",
      "against a write and a sync call.",
      "",
      "| night | pages read | written as | bytes added to the archive |",
      "| --- | --- | --- | --- |",
      `| 1 (all new) | ${N} | ${N} responses | ${night1.toLocaleString("en-US")} (${mb(night1)} MB) |`,
      `| 2 (95% unchanged) | ${N} | ${responses} responses, ${revisits} revisits, ${N - responses - revisits} × 304 (no record) | ${night2.toLocaleString("en-US")} (${mb(night2)} MB, ${((100 * night2) / night1).toFixed(1)}% of night 1) |`,
      "",
      "**Reading a copy back** (each 304 of a night does, P8): `readCapture` through the files kept",
      "open (src/store/archive/read.ts: one synchronous read for a record up to 64 kB, through the",
      "libuv pool above), the record inflated and parsed, and the body's digest checked as the night",
      "does; beside it, in the same rounds, only the record's bytes read from the same open file",
      "through the pool (`FileHandle.read`) and synchronously (`readSync`). Per read: wall µs / CPU µs",
      "(CPU counts every thread of the process, the pool's too).",
      "",
      "| body | reads | `readCapture` + digest | bytes only, `FileHandle.read` | bytes only, `readSync` |",
      "| --- | --- | --- | --- | --- |",
      ...reads,
    ].join("\n");
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
