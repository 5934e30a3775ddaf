/**
 * P8, as an outside tester found it: a night's archive file cut short (`truncate -s N` inside
 * the file, after some whole records; a copy or restore that stopped part way) stopped every
 * later night before it asked anything ("the index names records up to byte … but the file
 * has … bytes", exit 1, every night). Now the night goes on: the copies before the cut are
 * still used (a 304 is answered from them), each copy past it is asked for again (never lost
 * silently, never used half), the operator is told once which file is short and by how much,
 * and nothing is written into the short file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturesOf, latestCapture } from "../../src/store/archive/captures.js";
import { sha256Digest } from "../../src/store/archive/digest.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { readCapture } from "../../src/store/archive/read.js";
import { openStore } from "../../src/store/db.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { feedEntry, nightCli, rss, writeCatalog } from "../night/cli-night.js";

describe("a night over an archive file cut short (P8)", () => {
  let fleet: Fleet;
  let root: string;
  let catalog: string;
  const sites: FleetServer[] = [];
  const feeds: string[] = [];

  beforeAll(async () => {
    fleet = await startFleet();
    for (const host of ["127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14"]) {
      const s = await fleet.server({ host });
      s.route("/robots.txt", (_q, res) => void res.writeHead(200).end("User-agent: *\n"));
      s.route("/feed.rss", (req, res) => {
        if (req.headers["if-none-match"] === '"f1"')
          return void res.writeHead(304, { etag: '"f1"' }).end();
        res
          .writeHead(200, { "content-type": "application/rss+xml", etag: '"f1"' })
          .end(rss(s.origin, 40));
      });
      sites.push(s);
      feeds.push(s.url("/feed.rss"));
    }
    root = mkdtempSync(join(tmpdir(), "nor-short-night-"));
    catalog = writeCatalog(
      root,
      feeds.map((u, i) => feedEntry(`feed-${i}`, u)),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("P8: the night goes on, says once which file is short and by how much, answers 304s from the whole copies and asks once, in full, for each lost one", async () => {
    const d = join(root, "D");
    const first = await nightCli(catalog, d, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    // A copy of the data directory (the night is over: its store is copied whole).
    const d2 = join(root, "D2");
    cpSync(d, d2, { recursive: true });
    const files = listWarcFiles(join(d2, "archive"));
    expect(files).toHaveLength(1);
    const file = files[0]!;
    const path = join(d2, "archive", file);
    const indexedEnd = statSync(path).size;

    // Cut inside the record of the feed stored second: the first stays whole, the rest are lost.
    const store = await openStore({ kind: "sqlite", dir: d2 });
    const order = (
      await Promise.all(feeds.map(async (u) => (await capturesOf(store.db, u))[0]!))
    ).sort((a, b) => a.offset - b.offset);
    const cut = order[1]!.offset + Math.floor(order[1]!.length / 2);
    // Every copy stored past the cut (robots.txt answers too, in whatever order they came).
    const pastCut = (await store.db.selectFrom("captures").selectAll().execute()).filter(
      (r) => r.file === file && Number(r.offset) + Number(r.length) > cut,
    ).length;
    await store.close();
    truncateSync(path, cut);
    const kept = order.filter((c) => c.offset + c.length <= cut).map((c) => c.url);
    const lost = order.filter((c) => c.offset + c.length > cut).map((c) => c.url);
    expect(kept).toHaveLength(1);
    expect(lost).toHaveLength(3);
    const shortBytes = readFileSync(path);

    const before = sites.map((s) => s.requests.length);
    const second = await nightCli(catalog, d2, "2026-11-06");
    expect(second.code, second.stderr).toBe(0);
    // Told once, plainly: which file, how many bytes it lacks, how many copies are lost.
    const told = second.stderr.split("\n").filter((l) => l.includes("bytes short"));
    expect(told, second.stderr).toHaveLength(1);
    expect(told[0]).toContain(file);
    expect(told[0]).toContain(`${indexedEnd - cut} bytes short`);
    expect(told[0]).toContain(`${pastCut} stored copies`);

    const asked = sites.map((s, i) =>
      s.requests.slice(before[i]).filter((r) => r.path === "/feed.rss"),
    );
    for (const [i, url] of feeds.entries()) {
      const got = asked[i]!;
      if (kept.includes(url)) {
        // Its copy reads back whole: a 304 is answered from it, nothing more is asked.
        expect(got.map((r) => r.headers["if-none-match"] ?? null)).toEqual(['"f1"']);
      } else {
        // Its copy is lost (past the file's end): asked for once, in full, without the
        // validators of a copy not held, and stored again.
        expect(got.map((r) => r.headers["if-none-match"] ?? null)).toEqual([null]);
      }
    }

    // The short file is left as it was; every feed's latest copy reads back whole.
    expect(readFileSync(path).equals(shortBytes)).toBe(true);
    expect(listWarcFiles(join(d2, "archive")).length).toBeGreaterThan(1);
    const after = await openStore({ kind: "sqlite", dir: d2 });
    try {
      for (const url of feeds) {
        const c = (await latestCapture(after.db, url, { withBody: true, method: "GET" }))!;
        if (lost.includes(url)) expect(c.file).not.toBe(file);
        const back = await readCapture(join(d2, "archive"), c);
        expect(sha256Digest(back.body)).toBe(c.payloadDigest);
      }
    } finally {
      await after.close();
    }

    // `nor archive verify` names the short file; the next night runs too, its feeds all 304s.
    const v = await runMain(["archive", "verify", "--data", d2]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`MISMATCH ${file} offset ${cut}: ${indexedEnd - cut} bytes short`);
    const mark = sites.map((s) => s.requests.length);
    const third = await nightCli(catalog, d2, "2026-11-07");
    expect(third.code, third.stderr).toBe(0);
    for (const [i, s] of sites.entries()) {
      const feed = s.requests.slice(mark[i]).filter((r) => r.path === "/feed.rss");
      expect(feed.map((r) => r.headers["if-none-match"] ?? null)).toEqual(['"f1"']);
    }
  }, 120_000);
});
