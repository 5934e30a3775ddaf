import { readFileSync, renameSync, rmSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WARC_1_1, WARCRecord, WARCSerializer } from "warcio";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";
import { runCli } from "./support/run-cli.js";

/** Where these tests have `nor archive cdx --out` write: beside the data directory, not in it. */
const cdxOut = (t: TempStore): string => `${t.dataDir}-index.cdxj`;
const URL_A = "http://127.0.0.2/agendas?year=2026";
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 5, 8);

describe("nor archive show|verify|cdx (P8)", () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(URL_A, "<p>night one</p>", { at: T0, headers: { etag: '"1"' } }));
    await a.write(exchange(URL_A, "<p>night two</p>", { at: T0 + DAY, headers: { etag: '"2"' } }));
    await a.write(
      exchange(URL_A, "<p>night two</p>", { at: T0 + 2 * DAY, headers: { etag: '"2"' } }),
    );
    await a.write(
      exchange("http://127.0.0.3/bids.json", '{"bids":[]}', {
        at: T0,
        headers: { "content-type": "application/json" },
      }),
    );
    await a.close();
  });
  afterEach(async () => {
    rmSync(cdxOut(t), { force: true });
    await t.cleanup();
  });

  it("P8: show prints the latest capture's headers then body, or the one at/before --at", async () => {
    const latest = await runCli(["archive", "show", URL_A, "--data", t.dataDir]);
    expect(latest.code, latest.stderr).toBe(0);
    const text = latest.stdout.toString();
    expect(text.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    expect(text).toContain('etag: "2"');
    expect(text.endsWith("\r\n\r\n<p>night two</p>")).toBe(true);
    expect(latest.stderr).toContain("revisit");
    // The URL as a person pastes it (a fragment, an upper-case scheme and host): as it was asked.
    const pasted = await runCli([
      "archive",
      "show",
      "HTTP://127.0.0.2/agendas?year=2026#minutes",
      "--data",
      t.dataDir,
    ]);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect(pasted.stdout.toString()).toBe(text);

    const older = await runCli([
      "archive",
      "show",
      URL_A,
      "--at",
      "2026-11-05",
      "--data",
      t.dataDir,
    ]);
    expect(older.stdout.toString().endsWith("<p>night one</p>")).toBe(true);
    const none = await runCli([
      "archive",
      "show",
      URL_A,
      "--at",
      "2026-11-04",
      "--data",
      t.dataDir,
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no capture of http://127.0.0.2/agendas?year=2026");
    const bad = await runCli([
      "archive",
      "show",
      URL_A,
      "--at",
      "last tuesday",
      "--data",
      t.dataDir,
    ]);
    expect(bad.code).toBe(2);
  });

  it("P8: a file named before names carried a token (nor-<second>-<seq>.warc.gz) still opens, shows, verifies, indexes and is followed by the next number", async () => {
    const named = listWarcFiles(t.archiveDir)[0]!;
    expect(named).toMatch(/^nor-\d{14}-00001-[0-9a-f]{8}\.warc\.gz$/);
    const old = named.replace(/-[0-9a-f]{8}\.warc\.gz$/, ".warc.gz");
    renameSync(join(t.archiveDir, named), join(t.archiveDir, old));
    await t.store.db.updateTable("captures").set({ file: old }).where("file", "=", named).execute();
    await t.store.db
      .updateTable("captures")
      .set({ refers_file: old })
      .where("refers_file", "=", named)
      .execute();
    expect(listWarcFiles(t.archiveDir)).toEqual([old]);

    const shown = await runCli(["archive", "show", URL_A, "--data", t.dataDir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.toString().endsWith("<p>night two</p>")).toBe(true);
    const verified = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(verified.code, verified.stdout.toString() + verified.stderr).toBe(0);
    expect(verified.stdout.toString()).toContain(
      "1 file, 9 records, 11 digests checked, 0 problems",
    );
    // Beside the data directory: --out refuses a file in it (test/cli/archive-cdx-out.test.ts).
    const out = cdxOut(t);
    const cdx = await runCli(["archive", "cdx", "--data", t.dataDir, "--out", out]);
    expect(cdx.code, cdx.stderr).toBe(0);
    const files = readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))).filename);
    expect(new Set(files)).toEqual(new Set([old]));

    // Opened again: the old file is checked against the index as it was, and the next file
    // goes on from its number.
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    expect(a.recoveredBytes).toBe(0);
    await a.write(exchange("http://127.0.0.3/minutes", "<p>minutes</p>", { at: T0 + 3 * DAY }));
    const next = a.currentFile!;
    await a.close();
    expect(next).toMatch(/^nor-\d{14}-00002-[0-9a-f]{8}\.warc\.gz$/);
    expect(listWarcFiles(t.archiveDir)).toEqual([old, next]);
  });

  it("P8: verify checks every block and payload digest and exits 0 on a sound archive", async () => {
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code, r.stdout.toString() + r.stderr).toBe(0);
    // warcinfo + 4 pairs; 3 responses × 2 digests + 1 revisit × 1 (block) + 4 requests × 1
    expect(r.stdout.toString()).toContain("1 file, 9 records, 11 digests checked, 0 problems");
  });

  it("P8: verify exits 1 naming the file and offset of a record whose payload digest is wrong", async () => {
    const file = listWarcFiles(t.archiveDir)[0]!;
    const path = join(t.archiveDir, file);
    const offset = readFileSync(path).length;
    const forged = WARCRecord.create(
      {
        url: "http://127.0.0.2/forged",
        type: "response",
        warcVersion: WARC_1_1,
        warcHeaders: {
          "WARC-Payload-Digest": "sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA====",
        },
        httpHeaders: { "content-type": "text/plain" },
      },
      [new TextEncoder().encode("tampered")],
    );
    await appendFile(path, await WARCSerializer.serialize(forged, { gzip: true }));
    const r = await runCli(["archive", "verify", "--data", t.dataDir]);
    expect(r.code).toBe(1);
    expect(r.stdout.toString()).toContain(
      `MISMATCH ${file} offset ${offset}: payload digest mismatch`,
    );
  });

  it("P8: cdx writes sorted CDXJ lines with surt, 14-digit timestamp and the standard fields", async () => {
    // Beside the data directory: --out refuses a file in it (test/cli/archive-cdx-out.test.ts).
    const out = cdxOut(t);
    const r = await runCli(["archive", "cdx", "--data", t.dataDir, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect([...lines].sort()).toEqual(lines);
    const [surt, ts, json] = [
      lines[0]!.split(" ")[0],
      lines[0]!.split(" ")[1],
      lines[0]!.slice(lines[0]!.indexOf("{")),
    ];
    // warcio's SURT (it reverses an IP literal like a host name).
    expect(surt).toBe("2,0,0,127)/agendas?year=2026");
    expect(ts).toBe("20261105080000");
    const j = JSON.parse(json);
    expect(Object.keys(j).sort()).toEqual([
      "digest",
      "filename",
      "length",
      "mime",
      "offset",
      "status",
      "url",
    ]);
    expect(j).toMatchObject({
      url: URL_A,
      mime: "text/html",
      status: "200",
      filename: listWarcFiles(t.archiveDir)[0],
    });
    expect(lines.filter((l) => l.includes('"mime":"warc/revisit"'))).toHaveLength(1);
  });
});
