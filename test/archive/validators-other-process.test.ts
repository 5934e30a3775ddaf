/**
 * Review of 6d0b9a0 (one lookup of the index a page). ArchiveValidators remembers a URL's
 * latest copy until THIS process archives anything; another process on the same store (a
 * `nor night --workers` sibling, a `nor night` on another machine joined to one PostgreSQL, a
 * `nor discover` run meanwhile) archives without this process knowing. Its copy of tonight must
 * still be the one used (P8: the page is not asked again for what is already stored tonight),
 * and its validators the ones sent back (P12: the latest stored).
 *
 * Two store handles on one store and one archive directory stand for two processes.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { IdSource } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { postgresFactory, postgresUrl, sqliteFactory } from "../store/stores.js";
import { exchange } from "./support/fixtures.js";

const URL_U = "http://127.0.0.2/notices.rss";
const LAST_NIGHT = Date.UTC(2026, 10, 4, 8, 0, 0);
const TONIGHT = Date.UTC(2026, 10, 5, 7, 0, 0);

/** Record ids of one process: a prefix of its own, so two writers' files never share a name. */
function idsOf(prefix: string): IdSource {
  let n = 0;
  return {
    uuid: () => {
      n += 1;
      return `${prefix}${n.toString(16).padStart(8 - prefix.length, "0")}-0000-4000-8000-${n
        .toString(16)
        .padStart(12, "0")}`;
    },
  };
}

const factories = [sqliteFactory(), ...(postgresUrl ? [postgresFactory(postgresUrl)] : [])];
afterAll(async () => {
  for (const f of factories) await f.cleanup();
});

async function twoProcesses(loc: StoreLocation) {
  const dataDir = mkdtempSync(join(tmpdir(), "nor-two-"));
  const archiveDir = join(dataDir, "archive");
  const a = await openStore(loc);
  const b = await openStore(loc);
  const clock = new ManualClock();
  const archiveA = await WarcArchive.open(archiveDir, { db: a.db, clock, ids: idsOf("a") });
  const archiveB = await WarcArchive.open(archiveDir, { db: b.db, clock, ids: idsOf("b") });
  const copiesA = new ArchiveValidators(a.db, archiveDir);
  return {
    archiveA,
    archiveB,
    copiesA,
    archiveDir,
    db: a.db,
    close: async () => {
      await copiesA.close();
      await archiveA.close();
      await archiveB.close();
      await a.close();
      await b.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe.each(factories)("a copy another process archived ($name)", (factory) => {
  it("P8: a page another process stored tonight is found stored tonight, not asked again", async () => {
    const p = await twoProcesses(await factory.fresh());
    try {
      // Last night, this process kept the page; tonight it looks it up (the first source
      // reading it, answered 304, nothing archived by this process).
      await p.archiveA.write(
        exchange(URL_U, "<rss>one</rss>", { at: LAST_NIGHT, headers: { etag: '"v1"' } }),
      );
      expect(await p.copiesA.storedSince(URL_U, TONIGHT, Number.MAX_SAFE_INTEGER)).toBeUndefined();
      expect(await p.copiesA.get(URL_U)).toEqual({ etag: '"v1"' });
      // Another process reads the page tonight and keeps its new answer.
      await p.archiveB.write(
        exchange(URL_U, "<rss>two</rss>", { at: TONIGHT + 60_000, headers: { etag: '"v2"' } }),
      );
      // This process, asked again (a second source of the same page, a redirect to it):
      // tonight's copy is there, and the page must not be asked for again.
      const tonight = await p.copiesA.storedSince(URL_U, TONIGHT, Number.MAX_SAFE_INTEGER);
      expect(tonight && new TextDecoder().decode(tonight.body)).toBe("<rss>two</rss>");
    } finally {
      await p.close();
    }
  });

  it("P12: the validators sent back are the latest stored, whichever process stored them", async () => {
    const p = await twoProcesses(await factory.fresh());
    try {
      await p.archiveA.write(
        exchange(URL_U, "<rss>one</rss>", { at: LAST_NIGHT, headers: { etag: '"v1"' } }),
      );
      expect(await p.copiesA.get(URL_U)).toEqual({ etag: '"v1"' });
      await p.archiveB.write(
        exchange(URL_U, "<rss>two</rss>", { at: TONIGHT + 60_000, headers: { etag: '"v2"' } }),
      );
      expect(await p.copiesA.get(URL_U)).toEqual({ etag: '"v2"' });
    } finally {
      await p.close();
    }
  });

  it("P8, P12: a copy kept in another data directory's archive (another machine on one store) sends no validators: the page is asked once, in full, not a 304 and then the page", async () => {
    const loc = await factory.fresh();
    const here = mkdtempSync(join(tmpdir(), "nor-here-"));
    const there = mkdtempSync(join(tmpdir(), "nor-there-"));
    const a = await openStore(loc);
    const b = await openStore(loc);
    const clock = new ManualClock();
    const archiveThere = await WarcArchive.open(join(there, "archive"), {
      db: b.db,
      clock,
      ids: idsOf("b"),
    });
    const archiveHere = await WarcArchive.open(join(here, "archive"), {
      db: a.db,
      clock,
      ids: idsOf("a"),
    });
    const copiesHere = new ArchiveValidators(a.db, join(here, "archive"));
    try {
      await archiveThere.write(
        exchange(URL_U, "<rss>one</rss>", { at: LAST_NIGHT, headers: { etag: '"v1"' } }),
      );
      // The index (shared) names a copy this archive does not have.
      expect(await copiesHere.get(URL_U)).toBeUndefined();
      // Once kept here too, its validators are sent again.
      await archiveHere.write(
        exchange(URL_U, "<rss>one</rss>", { at: TONIGHT, headers: { etag: '"v1"' } }),
      );
      expect(await copiesHere.get(URL_U)).toEqual({ etag: '"v1"' });
    } finally {
      await copiesHere.close();
      await archiveHere.close();
      await archiveThere.close();
      await a.close();
      await b.close();
      rmSync(here, { recursive: true, force: true });
      rmSync(there, { recursive: true, force: true });
    }
  });

  it("P8, P12: a copy in a file cut short sends no validators (the page asked once, in full)", async () => {
    const p = await twoProcesses(await factory.fresh());
    try {
      await p.archiveA.write(
        exchange(URL_U, "<rss>one</rss>", { at: LAST_NIGHT, headers: { etag: '"v1"' } }),
      );
      await p.archiveA.close();
      const dir = p.archiveDir;
      const file = readdirSync(dir).find((f) => f.endsWith(".warc.gz"));
      if (file === undefined) throw new Error("no WARC file");
      const copies = new ArchiveValidators(p.db, dir);
      try {
        // Cut inside the copy's record: its last byte gone.
        const kept = await latestCapture(p.db, URL_U, { withBody: true, method: "GET" });
        if (kept === undefined) throw new Error("no capture");
        expect(statSync(join(dir, file)).size).toBeGreaterThanOrEqual(kept.offset + kept.length);
        truncateSync(join(dir, file), kept.offset + kept.length - 1);
        expect(await copies.get(URL_U)).toBeUndefined();
      } finally {
        await copies.close();
      }
    } finally {
      await p.close();
    }
  });
});
