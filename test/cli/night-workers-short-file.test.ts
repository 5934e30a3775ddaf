/**
 * P8: a WARC file cut short is said once a command. `nor night --workers 3` said it three
 * times: each of its processes opens the archive, finds the same short file and said so on the
 * stderr they share. Now the process a person started says it and its workers leave it to it;
 * a night of one process still says it.
 */
import { cpSync, mkdtempSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturesOf } from "../../src/store/archive/captures.js";
import { listWarcFiles } from "../../src/store/archive/files.js";
import { openStore } from "../../src/store/db.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { feedSites, nightCli } from "../night/cli-night.js";
import { runNorAsync } from "./run-nor.js";

/** The lines of a night's stderr (a person's lines or JSON log lines) that say a file is short. */
const shortNotes = (stderr: string) => stderr.split("\n").filter((l) => l.includes("bytes short"));

describe("nor night --workers over an archive file cut short (P8)", () => {
  let fleet: Fleet;
  let root: string;
  let catalog: string;
  /** A data directory whose one WARC file is cut inside its first stored copy. */
  let cutData: string;
  let file: string;

  beforeAll(async () => {
    fleet = await startFleet({ now: () => Date.now() });
    root = mkdtempSync(join(tmpdir(), "nor-workers-short-"));
    catalog = await feedSites(fleet, root, ["ok", "ok", "ok"], 2);
    cutData = join(root, "D");
    const first = await nightCli(catalog, cutData, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    const archive = join(cutData, "archive");
    const files = listWarcFiles(archive);
    expect(files).toHaveLength(1);
    file = files[0] as string;
    const store = await openStore({ kind: "sqlite", dir: cutData });
    const rows = await store.db.selectFrom("captures").select("url").execute();
    const firsts = await Promise.all(
      [...new Set(rows.map((r) => r.url))].map(async (u) => (await capturesOf(store.db, u))[0]),
    );
    await store.close();
    const earliest = firsts
      .filter((c) => c !== undefined && c.file === file)
      .sort((a, b) => (a?.offset ?? 0) - (b?.offset ?? 0))[0];
    expect(earliest).toBeDefined();
    truncateSync(
      join(archive, file),
      (earliest?.offset ?? 0) + Math.floor((earliest?.length ?? 0) / 2),
    );
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("P8: three processes share the night and the short file is said once", async () => {
    const data = join(root, "workers");
    cpSync(cutData, data, { recursive: true });
    const r = await runNorAsync(
      [
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-06"],
        ...["--workers", "3", "--concurrency", "1"],
        ...["--allow-private-addresses", "--gap-ms", "50"],
      ],
      { timeoutMs: 90_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    // Three processes ran it: the first one's summary and each worker's.
    const done = r.stderr.split("\n").filter((l) => l.includes('"msg":"night done"'));
    expect(done, r.stderr).toHaveLength(3);
    const told = shortNotes(r.stderr);
    expect(told, r.stderr).toHaveLength(1);
    expect(told[0]).toContain(file);
  }, 120_000);

  it("P8: a night of one process still says it", async () => {
    const data = join(root, "one");
    cpSync(cutData, data, { recursive: true });
    const r = await nightCli(catalog, data, "2026-11-06");
    expect(r.code, r.stderr).toBe(0);
    const told = shortNotes(r.stderr);
    expect(told, r.stderr).toHaveLength(1);
    expect(told[0]).toContain(file);
  }, 60_000);
});
