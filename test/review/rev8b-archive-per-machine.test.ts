/**
 * Review 8 (second pass): workers on several machines, one PostgreSQL, a data directory per
 * machine. docs/operations.md allows it ("with a data directory per machine, those answers
 * are asked once more after a takeover"): each machine's archive writes its own WARC files,
 * and the capture index (in PostgreSQL) is shared.
 *
 * A WARC file's name is its opening second and a number that goes on from the index's last
 * file (warc-archive.ts #newFile; the `.writer` claim only sees the machine's own directory).
 * Two machines that start the night together both open "nor-<second>-00001.warc.gz", each in
 * its own directory, and the shared index then names records of both under one file name.
 * When that machine's archive is next opened (the next night, a restart), recovery reads the
 * index's end for the file, which is the other machine's: when that one is longer, `open`
 * throws E_ARCHIVE ("the index names records up to byte N but the file has M bytes") and
 * `nor night` cannot start on that machine again; and a body read back by (file, offset) can
 * come from the other machine's bytes (then noted damaged, asked again).
 *
 * Failed on main at 7aef13b with NOR_TEST_POSTGRES_URL set, before the fix (it passes now). The fix suggested then: file
 * names unique per writer, not per directory (the host name or the process token in the name,
 * e.g. nor-<second>-<seq>-<token>.warc.gz), or the name claimed in the shared index (a row in
 * a `warc_files` table inserted before the file is created) rather than by a file in one
 * directory.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { openStore } from "../../src/store/db.js";
import { exchange } from "../archive/support/fixtures.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  await factory?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it.skipIf(!factory)(
  "P8: two machines' archives on one PostgreSQL index, a directory each, opened in the same second, open again and read back their own bodies",
  async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    const machineA = await openStore(loc);
    const machineB = await openStore(loc);
    const dirA = mkdtempSync(join(tmpdir(), "nor-rev8b-machine-a-"));
    const dirB = mkdtempSync(join(tmpdir(), "nor-rev8b-machine-b-"));
    dirs.push(dirA, dirB);
    // Both machines read the database server's time (store-clock.ts): the same second.
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 6, 0, 0));
    try {
      const a = await WarcArchive.open(dirA, { db: machineA.db, clock, ids: randomIds });
      const b = await WarcArchive.open(dirB, { db: machineB.db, clock, ids: randomIds });
      const bigBody = randomBytes(64 * 1024);
      await Promise.all([
        a.write(exchange("http://127.0.0.2/feed.xml", bigBody, { at: clock.now() })),
        b.write(exchange("http://127.0.0.3/agenda", "a short page", { at: clock.now() + 1 })),
      ]);
      const names = [a.currentFile, b.currentFile];
      await a.close();
      await b.close();

      // The next night on machine B.
      const reopened = await WarcArchive.open(dirB, {
        db: machineB.db,
        clock,
        ids: randomIds,
      }).then(
        async (b2) => {
          const body = await b2.bodyOf({
            url: "http://127.0.0.3/agenda",
            method: "GET",
            fetchedAt: clock.now() + 1,
          });
          await b2.close();
          return body === undefined ? "body not read back" : new TextDecoder().decode(body);
        },
        (err: unknown) => `open threw: ${String(err)}`,
      );
      expect({ sameName: names[0] === names[1], reopened }).toEqual({
        sameName: false,
        reopened: "a short page",
      });
    } finally {
      await machineA.close();
      await machineB.close();
    }
  },
);
