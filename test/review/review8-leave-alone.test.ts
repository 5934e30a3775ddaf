/**
 * Review 8: a path an owner asked to be left alone (`nor site --leave-alone`) is "treated like
 * a robots.txt Disallow for this checker" (P18). robots.txt rules are compared after
 * percent-encoding normalisation (P17, RFC 9309 §2.2.2), so the same path written with or
 * without percent-encoding is the same path. The owner's prefix must be too: the server must
 * never see a request under it, however the URL spells it.
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now): admission compares the percent-encoded path of the URL
 * with the prefix as typed (policy/admission.ts, `a.path.startsWith(r.prefix)`), so an owner's
 * "/public notices/" never matches the URL's "/public%20notices/" (nor any non-ASCII prefix).
 * Suggested fix: compare normalisePath(path) with normalisePattern(prefix) (policy/robots).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { randomIds } from "../../src/ids.js";
import { storeFetcher } from "../../src/night/store-fetcher.js";
import { openStore, type Store } from "../../src/store/db.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { robots } from "../fleet/routes.js";

describe("review 8: owners' leave-alone prefixes and percent-encoding", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({
      fallback: (_q, res) => void res.writeHead(200, { "content-type": "text/plain" }).end("x"),
    });
    site.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    dir = mkdtempSync(join(tmpdir(), "nor-review8-alone-"));
    store = await openStore({ kind: "sqlite", dir });
    const at = Date.parse("2026-11-05T06:00:00Z");
    for (const prefix of ["/public notices/", "/permits/", "/bids–rfps/"]) {
      await setSiteRule(store.db, {
        site: site.host,
        kind: "leave-alone",
        value: prefix,
        reason: "owner's e-mail of Nov 5",
        at,
        by: "review",
      });
    }
  });
  afterAll(async () => {
    await store?.close();
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fetcher = () =>
    storeFetcher({
      db: store.db,
      clock: systemClock,
      ids: randomIds,
      net: { allowPrivateAddresses: true, gapMs: 20 },
      night: "2026-11-05",
    });

  it("P18 (owner's leave-alone): a prefix with a space is left alone when the URL spells the space %20", async () => {
    const f = fetcher();
    try {
      const o = await f.fetch({ url: site.url("/public%20notices/list"), purpose: "page" });
      expect(site.requests.map((r) => r.path)).not.toContain("/public%20notices/list");
      expect(o.kind).toBe("disallowed");
    } finally {
      await f.close();
    }
  });

  it("P18 (owner's leave-alone): a non-ASCII prefix (an en dash from the owner's e-mail, accepted by the console too) is left alone", async () => {
    const f = fetcher();
    try {
      const o = await f.fetch({ url: site.url("/bids–rfps/open"), purpose: "page" });
      expect(site.requests.map((r) => r.path)).not.toContain("/bids%E2%80%93rfps/open");
      expect(o).toMatchObject({ kind: "disallowed" });
    } finally {
      await f.close();
    }
  });

  it("guard: /permits/ is left alone when the URL percent-encodes a letter (/%70ermits/; passes on main: checkUrl decodes unreserved)", async () => {
    const f = fetcher();
    try {
      const o = await f.fetch({ url: site.url("/%70ermits/2026"), purpose: "page" });
      expect(site.requests.map((r) => r.path)).not.toContain("/%70ermits/2026");
      expect(o).toMatchObject({ kind: "disallowed" });
    } finally {
      await f.close();
    }
  });

  it("guard: the plain spelling is left alone (passes on main)", async () => {
    const f = fetcher();
    try {
      const o = await f.fetch({ url: site.url("/permits/plain"), purpose: "page" });
      expect(o.kind).toBe("disallowed");
    } finally {
      await f.close();
    }
    expect(site.requests.map((r) => r.path)).not.toContain("/permits/plain");
  });
});
