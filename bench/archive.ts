/**
 * The archive (P8): write throughput against plain fs writing the same bytes in the same run,
 * and the bytes a night adds for a fleet where 95% of pages did not change (half of those
 * answer 304 and leave no record, half send the same body and become revisits).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../src/clock.js";
import { randomIds } from "../src/ids.js";
import { listWarcFiles } from "../src/store/archive/files.js";
import type { Exchange } from "../src/store/archive/records.js";
import { WarcArchive } from "../src/store/archive/warc-archive.js";
import { openStore } from "../src/store/db.js";

/** A records page: repetitive HTML with some unique text, so it compresses like a real one. */
function page(i: number, version: number, bytes: number): Uint8Array {
  const row = (n: number) =>
    `<tr><td><a href="/AgendaCenter/ViewFile/Agenda/_110${n}">Council agenda ${n} v${version}</a></td><td>2026-11-0${n % 9}</td></tr>\n`;
  let html = `<html><body><h1>Source ${i}</h1><table>\n`;
  for (let n = 0; html.length < bytes; n++) html += row(n + i);
  return new TextEncoder().encode(
    `${html}</table>${randomBytes(64).toString("hex")}</body></html>`,
  );
}

function ex(url: string, body: Uint8Array, at: number): Exchange {
  return {
    request: { method: "GET", url, headers: { "user-agent": "public-records-check/0.1" } },
    response: { status: 200, headers: { "content-type": "text/html" }, url, body, chain: [url] },
    fetchedAt: at,
    purpose: "page",
    source: url,
  };
}

function dirBytes(dir: string): number {
  return listWarcFiles(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

export async function run(): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), "nor-bench-archive-"));
  try {
    const store = await openStore({ kind: "sqlite", dir: join(data, "store") });
    const N = 400;
    const bodies = Array.from({ length: N }, (_, i) => page(i, 1, 60_000));
    const total = bodies.reduce((n, b) => n + b.length, 0);

    // Plain fs: the same body bytes appended, fsynced after each like the archive does.
    const fh = await open(join(data, "plain.bin"), "w");
    let t = performance.now();
    for (const b of bodies) {
      await fh.write(b);
      await fh.datasync();
    }
    const plainMs = performance.now() - t;
    await fh.close();

    const dir = join(data, "archive");
    const a = await WarcArchive.open(dir, { db: store.db, clock: systemClock, ids: randomIds });
    t = performance.now();
    for (let i = 0; i < N; i++)
      await a.write(ex(`http://source-${i}.example/agendas`, bodies[i]!, 1_000 + i));
    const warcMs = performance.now() - t;
    const night1 = dirBytes(dir);

    // Night 2: 5% changed (response), 47.5% same body (revisit), 47.5% 304 (nothing written).
    t = performance.now();
    let responses = 0;
    let revisits = 0;
    for (let i = 0; i < N; i++) {
      const r = i % 40;
      if (r < 2) {
        responses += 1;
        await a.write(ex(`http://source-${i}.example/agendas`, page(i, 2, 60_000), 90_000_000 + i));
      } else if (r < 21) {
        revisits += 1;
        await a.write(ex(`http://source-${i}.example/agendas`, bodies[i]!, 90_000_000 + i));
      }
    }
    const night2Ms = performance.now() - t;
    await a.close();
    const night2 = dirBytes(dir) - night1;
    await store.close();

    const mb = (n: number) => (n / 1e6).toFixed(1);
    const rate = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
    return [
      "## The archive",
      "",
      `${N} list pages of ${mb((total / N) * 1e3)} kB (HTML), each fsynced before it is indexed (P8).`,
      "",
      "| what | time | throughput |",
      "| --- | --- | --- |",
      `| plain fs: same bytes, append + fdatasync each | ${plainMs.toFixed(0)} ms | ${rate(total, plainMs)} MB/s |`,
      `| WarcArchive: WARC 1.1 response + request, gzip, digests, index row | ${warcMs.toFixed(0)} ms | ${rate(total, warcMs)} MB/s |`,
      "",
      `Ratio archive / plain fs: **${(warcMs / plainMs).toFixed(2)}×** the time.`,
      "",
      "| night | pages read | written as | bytes added to the archive |",
      "| --- | --- | --- | --- |",
      `| 1 (all new) | ${N} | ${N} responses | ${night1.toLocaleString("en-US")} (${mb(night1)} MB) |`,
      `| 2 (95% unchanged) | ${N} | ${responses} responses, ${revisits} revisits, ${N - responses - revisits} × 304 (no record) | ${night2.toLocaleString("en-US")} (${mb(night2)} MB, ${((100 * night2) / night1).toFixed(1)}% of night 1) in ${night2Ms.toFixed(0)} ms |`,
    ].join("\n");
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
