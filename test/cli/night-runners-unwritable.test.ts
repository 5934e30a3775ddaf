import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { notFoundSite, unwritable } from "./unwritable.js";

/**
 * Found from outside (the operator's side): a night once run as root leaves DATA/night-runners
 * owned by root; the service user's next `nor night` then stopped on a bare
 * `EACCES: permission denied, open '…/night-runners/….json'` with exit 1, which the systemd
 * units restart on every minute, while an archive directory in the same state is said as
 * configuration (exit 2, naming it: archive-unwritable.test.ts). Now the marks' directory is
 * named the same way, before the night is opened or anything asked, a stale mark there that
 * cannot be removed included.
 *
 * Made unwritable as archive-unwritable.test.ts does it (unwritable.ts): as root, `chattr +i` (a file system that
 * has it); as anyone else, its write bits taken away; skipped, saying so, where neither works.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("DATA/night-runners nor may not write in", () => {
  for (const stale of [false, true]) {
    it(`P11: nor night refuses before any request, naming DATA/night-runners (exit 2)${stale ? ", a dead night's mark in it" : ""}`, async (ctx) => {
      const d = mkdtempSync(join(tmpdir(), "nor-runners-unwritable-"));
      dirs.push(d);
      const data = join(d, "data");
      const s = await notFoundSite();
      try {
        const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Marked", {
          "marked-agendas": `records: agendas, access: feed, url: "${s.origin}/a.rss"`,
        });
        expect((await nor("catalog", "import", catalog, "--data", data)).code).toBe(0);
        const runners = join(data, "night-runners");
        mkdirSync(runners);
        if (stale)
          // A night killed long ago (its time over), its mark left where it cannot be removed.
          writeFileSync(
            join(runners, "dead.json"),
            `${JSON.stringify({ night: "2026-11-01", holder: `${hostname()}:999999:deadbeef`, until: 0, process: "999999\n\n\n\n" })}\n`,
          );
        const undo = unwritable(runners);
        if (!undo)
          ctx.skip(true, "cannot make a directory unwritable for root here (no chattr +i)");
        let r: Awaited<ReturnType<typeof nor>>;
        try {
          r = await nor(
            ...["night", "--catalog", catalog, "--data", data],
            ...["--allow-private-addresses", "--gap-ms", "0"],
          );
        } finally {
          undo?.();
        }
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(
          new RegExp(
            `^nor: the directory ${escaped(runners)} is not writable \\((EACCES|EPERM)\\): nor night keeps there a mark of each process running a night .*; give the user running nor \\(uid \\d+\\) write access to it .*\`chown -R\`.*, or run nor as its owner\\n$`,
          ),
        );
        expect(s.asked).toEqual([]);
        // No night was opened: once the directory is mended the night starts anew.
        const store = await openStore({ kind: "sqlite", dir: data });
        try {
          expect(await store.db.selectFrom("nights").selectAll().execute()).toEqual([]);
        } finally {
          await store.close();
        }
        const again = await nor(
          ...["night", "--catalog", catalog, "--data", data],
          ...["--allow-private-addresses", "--gap-ms", "0"],
        );
        expect(again.code, again.stderr).toBe(0);
        expect(s.asked).toContain("/a.rss");
      } finally {
        s.server.close();
      }
    });
  }
});
