import { createReadStream } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WARCParser } from "warcio";
import { systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { validatorsFor } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { type TempStore, tempStore } from "./support/fixtures.js";

/** A small site on loopback that notes every request it sees. */
function site(seen: IncomingMessage[]): Server {
  return createServer((req, res) => {
    seen.push(req);
    const path = req.url ?? "/";
    if (path === "/robots.txt") return void res.end("User-agent: *\nAllow: /\n");
    if (path === "/agendas") {
      if (req.headers["if-none-match"] === '"v1"')
        return void res.writeHead(304, { etag: '"v1"' }).end();
      return void res
        .writeHead(200, { "content-type": "text/html", etag: '"v1"' })
        .end("<li>Agenda 1</li>");
    }
    if (path === "/feed") {
      res.writeHead(200, { "content-type": "application/rss+xml", "content-encoding": "gzip" });
      return void res.end(gzipSync("<rss><item>Bid</item></rss>"));
    }
    if (path === "/same")
      return void res.writeHead(200, { "content-type": "text/plain" }).end("unchanged");
    if (path === "/moved") return void res.writeHead(301, { location: "/same" }).end();
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
  });
}

async function responseRecords(dir: string) {
  const out: { type: string; url: string; date: string }[] = [];
  for (const f of listWarcFiles(dir)) {
    for await (const r of WARCParser.iterRecords(createReadStream(join(dir, f)))) {
      await r.readFully(false);
      if (r.warcType === "response" || r.warcType === "revisit") {
        out.push({ type: r.warcType, url: r.warcTargetURI ?? "", date: r.warcDate ?? "" });
      }
    }
  }
  return out;
}

describe("the archive and the request log agree (P8, P12, P27)", () => {
  let t: TempStore;
  let server: Server;
  let base: string;
  const seen: IncomingMessage[] = [];
  beforeEach(async () => {
    t = await tempStore();
    seen.length = 0;
    server = site(seen);
    await new Promise<void>((r) => server.listen(0, "127.0.0.2", r));
    base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    await t.cleanup();
  });

  it("P8: every answer the log shows with a body has exactly one response or revisit record, and P12 validators come from the archive", async () => {
    const archive = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    const log = new MemoryJournal();
    const robotsCache = new MemoryRobotsCache();
    const options = (night: string) => ({
      night,
      clock: systemClock,
      ids: randomIds,
      journal: log,
      robotsCache,
      archive,
      gapMs: 5,
      transportOptions: {
        allowPrivateAddresses: true,
        headersTimeoutMs: 5_000,
        bodyTimeoutMs: 5_000,
      },
    });
    const fetcher = createFetcher(options("2026-11-05"));
    // The next night asks again with the stored validators (tonight's answer is never asked
    // again, P8): the 304 is read from the archive (P12).
    const nextNight = createFetcher(options("2026-11-06"));
    try {
      const first = await fetcher.fetch({ url: `${base}/agendas`, purpose: "page", source: "s1" });
      expect(first.kind).toBe("ok");
      const validators = await validatorsFor(t.store.db, `${base}/agendas`);
      expect(validators).toEqual({ etag: '"v1"' });
      const again = await nextNight.fetch({
        url: `${base}/agendas`,
        purpose: "page",
        source: "s1",
        ...(validators ? { validators } : {}),
      });
      expect(again.kind).toBe("not-modified");
      expect(seen.filter((r) => r.url === "/agendas").at(-1)?.headers["if-none-match"]).toBe(
        '"v1"',
      );
      expect(
        (await fetcher.fetch({ url: `${base}/feed`, purpose: "page", source: "s2" })).kind,
      ).toBe("ok");
      await fetcher.fetch({ url: `${base}/same`, purpose: "page", source: "s3" });
      await fetcher.fetch({ url: `${base}/moved`, purpose: "page", source: "s3" });
      await fetcher.fetch({ url: `${base}/gone`, purpose: "page", source: "s4" });
    } finally {
      await fetcher.close();
      await nextNight.close();
      await archive.close();
    }

    const withBody = log.entries.filter(
      (e) => e.status !== null && ((e.status >= 200 && e.status < 300) || e.status >= 400),
    );
    const records = await responseRecords(t.archiveDir);
    const key = (url: string, at: string) => `${url} ${at}`;
    expect(records.map((r) => key(r.url, r.date)).sort()).toEqual(
      withBody.map((e) => key(e.url, new Date(e.startedAt).toISOString())).sort(),
    );
    // robots.txt, /agendas, /feed, /same, /gone: /same reached again through /moved is
    // answered from its stored copy, not asked again the same night (P8).
    expect(records).toHaveLength(5);
    expect(seen.filter((r) => r.url === "/same")).toHaveLength(1);
    // The 304 and the 301 carry no body and leave no record; the server saw them all.
    expect(log.entries.some((e) => e.status === 304)).toBe(true);
    expect(seen.length).toBe(log.entries.length);
  });
});
