import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { NorError } from "../../src/errors.js";
import {
  ensureRoom,
  MIN_ARCHIVE_ROOM_BYTES,
  WarcArchive,
} from "../../src/store/archive/warc-archive.js";
import { openStore } from "../../src/store/db.js";
import { exchange, tempStore } from "../archive/support/fixtures.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { notFoundSite, unwritable } from "./unwritable.js";

/**
 * An archive directory nor may not write in (made by another user: a night once run as root,
 * then as a service user) stops the night before its first request, naming the directory and
 * why (exit 2, as a file in its place does), instead of every answer's copy failing after it
 * came and the request being asked again.
 *
 * Made unwritable in a way the user running the tests cannot get round: as root (whom
 * permission bits do not stop) the directory is made immutable (`chattr +i`, which needs a
 * file system that has it, ext4 say); as anyone else its write bits are taken away. Where
 * neither works the case is skipped, and says so.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-archive-unwritable-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("an archive directory nor may not write in", () => {
  it("nor night refuses before any request, naming DATA/archive (exit 2)", async (ctx) => {
    const d = tmp();
    const data = join(d, "data");
    const s = await notFoundSite();
    try {
      const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Locked", {
        "locked-agendas": `records: agendas, access: feed, url: "${s.origin}/a.rss"`,
      });
      expect((await nor("catalog", "import", catalog, "--data", data)).code).toBe(0);
      const archive = join(data, "archive");
      mkdirSync(archive, { recursive: true });
      const undo = unwritable(archive);
      if (!undo) ctx.skip(true, "cannot make a directory unwritable for root here (no chattr +i)");
      let r: Awaited<ReturnType<typeof nor>>;
      try {
        r = await nor(
          "night",
          "--catalog",
          catalog,
          "--data",
          data,
          "--allow-private-addresses",
          "--gap-ms",
          "0",
        );
      } finally {
        undo?.();
      }
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `nor: the archive directory ${archive.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not writable \\((EACCES|EPERM)\\): the stored copies \\(P8\\) are written there; give the user running nor \\(uid \\d+\\) write access to it, or run nor as its owner\\n$`,
        ),
      );
      expect(s.asked).toEqual([]);
      // No night was opened: a re-run once the directory is fixed starts it anew (P13).
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        expect(await store.db.selectFrom("nights").selectAll().execute()).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      s.server.close();
    }
  });

  it("WarcArchive.open refuses it as configuration (E_CONFIG), before anything is written", async (ctx) => {
    const t = await tempStore();
    try {
      mkdirSync(t.archiveDir);
      const undo = unwritable(t.archiveDir);
      if (!undo) ctx.skip(true, "cannot make a directory unwritable for root here (no chattr +i)");
      try {
        const err = await WarcArchive.open(t.archiveDir, t.archiveOptions).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(NorError);
        expect((err as NorError).code).toBe("E_CONFIG");
        expect((err as Error).message).toContain(`the archive directory ${t.archiveDir}`);
      } finally {
        undo?.();
      }
    } finally {
      await t.cleanup();
    }
  });

  it("a WARC file whose torn tail cannot be cut off is named (E_CONFIG), not a bare EACCES", async (ctx) => {
    const t = await tempStore();
    try {
      const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
      await a.write(exchange("http://127.0.0.1:9/bids", "<p>bids</p>"));
      const file = join(t.archiveDir, a.currentFile ?? "");
      await a.close();
      // A record torn by a kill: the start of a gzip member, cut short at the file's end.
      appendFileSync(
        file,
        gzipSync(Buffer.from("a record torn by a kill ".repeat(50))).subarray(0, 24),
      );
      const undo = unwritable(file);
      if (!undo) ctx.skip(true, "cannot make a file unwritable for root here (no chattr +i)");
      try {
        const err = await WarcArchive.open(t.archiveDir, t.archiveOptions).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(NorError);
        expect((err as NorError).code).toBe("E_CONFIG");
        expect((err as Error).message).toMatch(
          /^the archive file .* is not writable \((EACCES|EPERM)\): its torn last record must be cut off/,
        );
        expect((err as Error).message).toContain(file);
      } finally {
        undo?.();
      }
    } finally {
      await t.cleanup();
    }
  });
});

describe("room for the night's copies", () => {
  it("P8: an archive whose file system is nearly full is refused before the night asks anything (exit 2), naming the directory and what is free", () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-archive-room-"));
    try {
      expect(() => ensureRoom(dir, () => ({ bavail: 10, bfree: 10, bsize: 4096 }))).toThrow(
        expect.objectContaining({
          code: "E_CONFIG",
          message: `the archive's file system has 0 MiB free at ${dir}; a night needs at least ${MIN_ARCHIVE_ROOM_BYTES / 1024 / 1024} MiB to keep the copies it reads (P8): make room there first`,
        }),
      );
      // Enough room, or a file system that cannot say: nothing refused.
      expect(() =>
        ensureRoom(dir, () => ({
          bavail: MIN_ARCHIVE_ROOM_BYTES / 4096,
          bfree: MIN_ARCHIVE_ROOM_BYTES / 4096,
          bsize: 4096,
        })),
      ).not.toThrow();
      // Blocks kept for root count when root runs it, not otherwise.
      const reserved = () => ({ bavail: 10, bfree: MIN_ARCHIVE_ROOM_BYTES / 4096, bsize: 4096 });
      expect(() => ensureRoom(dir, reserved, true)).not.toThrow();
      expect(() => ensureRoom(dir, reserved, false)).toThrow(/0 MiB free/);
      expect(() =>
        ensureRoom(dir, () => {
          throw new Error("ENOSYS");
        }),
      ).not.toThrow();
      // This machine's own disk has room.
      expect(() => ensureRoom(dir)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
