/**
 * tdurable (outside tester): P12 across machines. docs/operations.md allows the night's
 * workers on several machines over one PostgreSQL, each with a data directory of its own
 * ("With a data directory per machine, those answers are asked once more after a takeover").
 * Which machine reads a site is whichever leases its lane first, so from one night to the next
 * a site's lane moves between machines with no takeover at all.
 *
 * The ETag is stored (the capture index is in PostgreSQL, shared); the copy a 304 would be
 * answered from is in the archive of the machine that read it. The night on the other machine
 * sends no validators at all (night/stored-copy.ts: "Validators are sent only when the store
 * can give a copy back"), so an unchanged feed is downloaded in full.
 *
 * What the site owner sees: the night after the lane moved, a plain GET answered 200 with the
 * whole feed, although it sent an ETag the night before. P12: "a stored ETag is sent back as
 * If-None-Match ... a 304 costs nothing more". Not asked twice (that holds: one request).
 * Expected: the stored ETag is sent back (the 304 answered from the copy wherever it is, or the
 * operator told that a data directory per machine gives up P12 whenever a lane moves).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { startFleet } from "../fleet/fleet.js";
import { feedEntry, rss, writeCatalog } from "../night/cli-night.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";

const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const dirs: string[] = [];
afterAll(async () => {
  await factory?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(factory === undefined)("tdurable: a 304 on another machine (PostgreSQL)", () => {
  // DEFECT (minor; the docs' advice of one shared data directory avoids it): the stored
  // validators are not sent when this machine's archive lacks the copy (the validator store
  // behind src/night/stored-copy.ts fetchOrCopy), and nothing said so to the operator. Left
  // unmended (confirmed failing: "(none)" sent, not "v1"); docs/operations.md now says it (one
  // more full download each time a lane moves machine) and its remedy, one shared data directory.
  it.skip("P12: an unchanged feed read last night on machine A is asked tonight on machine B with its stored ETag (one request, a 304)", async () => {
    const fleet = await startFleet();
    try {
      const loc = await (factory as NonNullable<typeof factory>).fresh();
      if (loc.kind !== "postgres") throw new Error("expected PostgreSQL");
      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      site.route("/feed.xml", (req, res) => {
        if (req.headers["if-none-match"] === '"v1"')
          return void res.writeHead(304, { etag: '"v1"' }).end();
        res
          .writeHead(200, { "content-type": "application/rss+xml", etag: '"v1"' })
          .end(rss(site.origin, 2));
      });
      const root = mkdtempSync(join(tmpdir(), "nor-tdurable-304-"));
      dirs.push(root);
      const catalog = writeCatalog(root, [feedEntry("test-agendas", site.url("/feed.xml"))]);
      const env = { NOR_DATABASE_URL: loc.url };
      const nightOn = async (data: string, night: string) => {
        const r = await runMain(
          [
            ...["night", "--catalog", catalog, "--data", data, "--night", night],
            ...["--allow-private-addresses", "--gap-ms", "50", "--concurrency", "1"],
          ],
          { env },
        );
        expect(r.code, r.stderr).toBe(0);
      };
      await nightOn(join(root, "machine-a"), "2026-11-05");
      const before = site.hits("/feed.xml").length;
      await nightOn(join(root, "machine-b"), "2026-11-06");
      const tonight = site.hits("/feed.xml").slice(before);
      // Seen on main: one GET, without If-None-Match, answered 200 in full.
      expect(tonight).toHaveLength(1);
      expect(tonight.map((q) => q.headers["if-none-match"] ?? "(none)")).toEqual(['"v1"']);
    } finally {
      await fleet.close();
    }
  }, 60_000);
});
