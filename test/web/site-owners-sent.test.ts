import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { lastNightUserAgent } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { feedEntry, nightCli, writeCatalog } from "../night/cli-night.js";

/**
 * P1, P2: the site-owners page shows the User-Agent the checker last sent (recorded by each
 * night), not whatever `--user-agent` the server was given: run as two commands (a timer's
 * `nor night`, a service's `nor serve`) given different values, the page still tells site
 * owners what is in their logs and whom to write to.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-owners-sent-"));
const seen: string[] = [];
let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(String(req.headers["user-agent"]));
    if (req.url === "/robots.txt") res.writeHead(404).end();
    else
      res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(
          '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x/</link><description>d</description><item><title>A</title><link>http://x/a</link><guid>a</guid></item></channel></rss>',
        );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("the site-owners page and the User-Agent sent", () => {
  it("P1, P2: shows the User-Agent the last night sent, with its contact, not the one the server was given; before any night, the server's", async () => {
    const data = join(dir, "data");
    const catalog = writeCatalog(dir, [feedEntry("t-feed", `${origin}/feed.rss`)]);
    const nightUa = "public-records-check/0.1 (+mailto:night-ops@example.org)";
    const serveUa = "public-records-check/0.1 (+mailto:serve-ops@example.org)";

    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      // No night yet: the server's own value is all there is.
      const before = await (
        await createApp({ db: store.db, now: Date.now, userAgent: serveUa }).request("/site-owners")
      ).text();
      expect(before).toContain(`<pre id="user-agent">${serveUa}</pre>`);
    } finally {
      await store.close();
    }

    const r = await nightCli(catalog, data, "2026-11-05", ["--user-agent", nightUa]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(seen)).toEqual(new Set([nightUa]));

    const after = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      expect(await lastNightUserAgent(after.db)).toBe(nightUa);
      const html = await (
        await createApp({
          db: after.db,
          now: Date.now,
          userAgent: serveUa,
          operatorName: "Serve Person",
        }).request("/site-owners")
      ).text();
      expect(html).toContain(`<pre id="user-agent">${nightUa}</pre>`);
      expect(html).toContain('<a href="mailto:night-ops@example.org">night-ops@example.org</a>');
      expect(html).not.toContain("serve-ops@example.org");
      // The name given with another User-Agent is not put beside this one's contact.
      expect(html).not.toContain("Serve Person");
      // Given the same value, the operator's name is shown.
      const same = await (
        await createApp({
          db: after.db,
          now: Date.now,
          userAgent: nightUa,
          operatorName: "Night Person",
        }).request("/site-owners")
      ).text();
      expect(same).toContain("Night Person runs it");
    } finally {
      await after.close();
    }
    // The built-in value when none was given.
    expect(DEFAULT_USER_AGENT).not.toBe(nightUa);
  });

  it("P2: a store that cannot be read now (a connection lost) leaves the page up, with the User-Agent the server was given", async () => {
    const data = join(dir, "data-closed");
    const store = await openStore({ kind: "sqlite", dir: data });
    const app = createApp({ db: store.db, now: Date.now, userAgent: DEFAULT_USER_AGENT });
    await store.close();
    const res = await app.request("/site-owners");
    expect(res.status).toBe(200);
    // Kept by no cache: the next visit reads the store again.
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toContain(`<pre id="user-agent">${DEFAULT_USER_AGENT}</pre>`);
  });
});
