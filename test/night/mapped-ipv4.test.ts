import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { siteOf } from "../../src/policy/site.js";
import {
  nightOn,
  noRobots,
  oneItemFeed,
  outcomesOn,
  TESTER_GAP_MS,
  testerCatalog,
  testerWorld,
} from "./tester-nights.js";

/**
 * An outside tester's finding: `127.0.0.80` and `[::ffff:7f00:50]` (the IPv4-mapped IPv6 form of
 * the same address) reach the same machine, yet were two sites: two lanes asked it at once (0 ms
 * apart), and the owner's `nor site 127.0.0.80 --gap 10s` did not hold for the other spelling.
 * The mapped form is the IPv4 host's site now (src/policy/site.ts).
 */
const world = testerWorld("nor-mapped-ipv4-");

describe("one machine written two ways", () => {
  it("P9, P10: an IPv4 address and its IPv4-mapped IPv6 form are one site: one request at a time, the gap between them", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    for (const p of ["/a.rss", "/b.rss", "/c.rss", "/d.rss"]) site.route(p, oneItemFeed);
    const mapped = (path: string) => {
      const [x, y, z, w] = site.host.split(".").map(Number) as [number, number, number, number];
      const hex = (n: number) => n.toString(16);
      return `http://[::ffff:${hex((x << 8) | y)}:${hex((z << 8) | w)}]:${site.port}${path}`;
    };
    expect(siteOf(mapped("/"))).toBe(site.host);
    const catalog = testerCatalog(world.dir, "mapped", [
      `  - { id: s-a, government: city-of-test, records: agendas, access: feed, url: "${site.url("/a.rss")}" }`,
      `  - { id: s-b, government: city-of-test, records: minutes, access: feed, url: "${mapped("/b.rss")}" }`,
      `  - { id: s-c, government: city-of-test, records: bids, access: feed, url: "${site.url("/c.rss")}" }`,
      `  - { id: s-d, government: city-of-test, records: notices, access: feed, url: "${mapped("/d.rss")}" }`,
    ]);
    const data = join(world.dir, "mapped");
    await nightOn(catalog, data, "2026-11-05");
    const rows = outcomesOn(data, "2026-11-05");
    for (const id of ["s-a", "s-b", "s-c", "s-d"]) expect(rows[id]?.outcome, id).toBe("ok");
    const seen = [...site.requests].sort((p, q) => p.startedAt - q.startedAt);
    expect(seen.filter((r) => r.path.endsWith(".rss"))).toHaveLength(4);
    // One at a time, each asked once the one before had ended and the gap had passed.
    for (let i = 1; i < seen.length; i++) {
      const prev = seen[i - 1]!;
      const next = seen[i]!;
      expect(next.startedAt - prev.endedAt, `${prev.path} → ${next.path}`).toBeGreaterThanOrEqual(
        TESTER_GAP_MS - 5,
      );
    }
  });
});
