/**
 * revmachines (review of fixmachines): P14, P8. A robots.txt that redirects into another
 * origin's page reads that page at the robots read limit (500 KiB and a few bytes, P17); a page
 * over it is read "too-large" there, its first bytes kept. The same page asked the same night
 * as a source's page (its limit 20 MiB, P14) heard "answered" at the site gate and was replayed
 * from that row as too large: a 600 KiB page said "too large" though P14's limit is 20 MiB.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { startFleet } from "../fleet/fleet.js";
import { storeFactories } from "../store/stores.js";
import { machineFetcher } from "./two-machines.js";

const factories = storeFactories();
const dirs: string[] = [];
afterAll(async () => {
  for (const f of factories) await f.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const BIG_PAGE = `<ul>${"<li>an agenda item of a long page</li>\n".repeat(16_000)}</ul>`;

describe.each(factories)(
  "revmachines: a page first read as a robots.txt's redirect target ($name)",
  (factory) => {
    // Was a DEFECT (older than fixmachines: src/net/steps/archive.ts replayed any "too-large"
    // row as too large, whatever limit it was read at): seen 'too-large' for the source's page.
    // Mended: a row read at the robots limit (its first bytes kept with it) is asked again as a
    // page.
    it("P14, P8: a 600 KiB page a robots.txt redirected into, then asked as a source's page the same night, is read in full, not said too large", async () => {
      const fleet = await startFleet();
      const loc = await factory.fresh();
      const store = await openStore(loc);
      const dir = mkdtempSync(join(tmpdir(), "nor-revm-hop-"));
      dirs.push(dir);
      try {
        const vendor = await fleet.server();
        vendor.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        vendor.route(
          "/rules",
          (_q, res) => void res.writeHead(200, { "content-type": "text/html" }).end(BIG_PAGE),
        );
        const gov = await fleet.server();
        gov.route(
          "/robots.txt",
          (_q, res) => void res.writeHead(301, { location: vendor.url("/rules") }).end(),
        );
        gov.route(
          "/a",
          (_q, res) =>
            void res.writeHead(200, { "content-type": "text/html" }).end("<ul><li>a</li></ul>"),
        );
        const fetcher = await machineFetcher(store, dir, "host-a:101:aaaa", {
          gapMs: 50,
          night: "2026-11-20",
        });
        const first = await fetcher.fetch({ url: gov.url("/a"), purpose: "page", source: "gov-a" });
        const page = await fetcher.fetch({
          url: vendor.url("/rules"),
          purpose: "page",
          source: "vendor-rules",
        });
        await fetcher.close();
        expect(first.kind).not.toBe("too-large");
        expect(page.kind).toBe("ok");
      } finally {
        await store.close();
        await fleet.close();
      }
    }, 30_000);
  },
);
