import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "../night/cli-night.js";
import { runMain } from "./cli-capture.js";

const OPERATOR_UA = "public-records-check/0.1 (+mailto:records-desk@example.org)";

const nor = (args: string[], env: Record<string, string> = {}) => runMain(args, { env });

describe("the operator's User-Agent", () => {
  let fleet: Fleet;
  let site: FleetServer;
  let dir: string;
  let catalog: string;

  beforeAll(async () => {
    fleet = await startFleet();
    site = await fleet.server({ host: "127.0.0.11" });
    site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    site.route(
      "/a.rss",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(site.origin, 1)),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-ua-"));
    catalog = writeCatalog(dir, [
      [
        "id: a",
        "government: village-of-test",
        "records: agendas",
        "access: feed",
        `url: ${site.url("/a.rss")}`,
      ],
    ]);
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const night = ["night", "--night", "2026-11-05", "--allow-private-addresses", "--gap-ms", "50"];

  it("P1: a browser's or another product's name is refused before any request is sent", async () => {
    for (const ua of [
      "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0",
      "public-records-check/0.1 Googlebot/2.1",
      "curl/8.5.0",
      "public-records-check/0.1 (+mailto:a@b.org) AhrefsBot/7.0",
    ]) {
      const r = await nor([
        ...night,
        "--catalog",
        catalog,
        "--data",
        join(dir, "bad"),
        "--user-agent",
        ua,
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/user agent/);
      expect(r.stderr).toContain("public-records-check/<version> (+mailto:<address>)");
    }
    const viaEnv = await nor([...night, "--catalog", catalog, "--data", join(dir, "bad")], {
      NOR_USER_AGENT: "Mozilla/5.0",
    });
    expect(viaEnv.code).not.toBe(0);
    expect(site.requests).toEqual([]);
  }, 120_000);

  it("P1: a contact that names a browser or another crawler (googlebot, Chrome) is refused, naming the word, before any request is sent: by --user-agent and NOR_USER_AGENT alike", async () => {
    for (const [ua, word] of [
      ["public-records-check/0.1 (+https://googlebot.com/Chrome/120.0)", "googlebot"],
      ["public-records-check/0.1 (+mailto:googlebot@google.com)", "googlebot"],
      ["public-records-check/0.1 (+https://example.org/Mozilla/5.0)", "Mozilla"],
    ] as const) {
      const args = [...night, "--catalog", catalog, "--data", join(dir, "named")];
      for (const r of [
        await nor([...args, "--user-agent", ua]),
        await nor(args, { NOR_USER_AGENT: ua }),
      ]) {
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`names "${word}"`);
        expect(r.stderr).toContain("P1");
      }
    }
    const start = await nor([
      "start",
      "--data",
      join(dir, "named-start"),
      "--catalog",
      catalog,
      "--user-agent",
      "public-records-check/0.1 (+mailto:ops@bingbot.example.org)",
    ]);
    expect(start.code).toBe(2);
    expect(start.stderr).toContain('names "bingbot"');
    expect(site.requests).toEqual([]);
  }, 120_000);

  it("P1, P2: the operator's contact goes out on every request, and the site-owner page shows that same value", async () => {
    const r = await nor([...night, "--catalog", catalog, "--data", join(dir, "good")], {
      NOR_USER_AGENT: OPERATOR_UA,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(site.requests.map((q) => q.headers["user-agent"])).toEqual([OPERATOR_UA, OPERATOR_UA]);
    const html = await (
      await createApp({ userAgent: OPERATOR_UA, now: () => Date.now() }).request("/site-owners")
    ).text();
    expect(html).toContain(`<pre id="user-agent">${OPERATOR_UA}</pre>`);
  }, 120_000);
});
