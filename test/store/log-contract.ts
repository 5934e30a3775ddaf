import { afterAll, describe, expect, it } from "vitest";
import type { CachedRobots, RequestLogEntry, RobotsCachePort } from "../../src/net/types.js";
import { openStore, type Store } from "../../src/store/db.js";
import * as m001 from "../../src/store/migrations/001-log.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { entry } from "./entries.js";
import type { StoreFactory } from "./stores.js";

const T0 = Date.UTC(2026, 10, 5, 8, 0, 0);

/** One suite, run against every dialect the store supports (SQLite and PostgreSQL). */
export function logStoreContract(factory: StoreFactory): void {
  describe(`log store contract (${factory.name})`, () => {
    const open: Store[] = [];
    const fresh = async (): Promise<Store> => {
      const s = await openStore(await factory.migrated());
      open.push(s);
      return s;
    };
    afterAll(async () => {
      for (const s of open.splice(0)) await s.close().catch(() => {});
      await factory.cleanup();
    });

    it("migrations run twice without error (reopen, and the DDL itself re-run)", async () => {
      const loc = await factory.fresh();
      const first = await openStore(loc);
      await new SqlRequestLog(first.db).append(entry());
      await m001.up(first.db as never);
      await first.close();
      const second = await openStore(loc);
      open.push(second);
      expect(await new SqlRequestLog(second.db).query()).toHaveLength(1);
    });

    it("P27: append then query round-trips every field of an attempt", async () => {
      const log = new SqlRequestLog((await fresh()).db);
      const full: RequestLogEntry = entry({
        startedAt: T0 + 1,
        endedAt: T0 + 30_001,
        method: "POST",
        status: 403,
        outcome: "refused",
        failure: "challenge page",
        purpose: "form",
        attempt: 3,
        night: "2026-11-05",
        validatorsSent: { etag: '"abc"', lastModified: "Wed, 04 Nov 2026 10:00:00 GMT" },
        validatorsReceived: { etag: '"def"' },
        evidence: { provider: "cloudflare", verdict: "challenge", marker: "cf-mitigated" },
      });
      const minimal = entry({ startedAt: T0 + 2, status: null, outcome: "unreachable" });
      delete minimal.source;
      await log.append(full);
      await log.append(minimal);
      const got = await log.query();
      expect(got).toStrictEqual([full, minimal]);
    });

    it("P27: attempts come back in start order, ties in the order they were logged", async () => {
      const log = new SqlRequestLog((await fresh()).db);
      const starts = [T0 + 5000, T0 + 1000, T0 + 3000, T0 + 1000, T0 + 2000];
      for (const [i, s] of starts.entries()) await log.append(entry({ startedAt: s, attempt: i }));
      const got = await log.query();
      expect(got.map((e) => [e.startedAt - T0, e.attempt])).toEqual([
        [1000, 1],
        [1000, 3],
        [2000, 4],
        [3000, 2],
        [5000, 0],
      ]);
    });

    it("P27: filters by time window (since inclusive, until exclusive), site, URL text, source and limit", async () => {
      const log = new SqlRequestLog((await fresh()).db);
      await log.appendMany([
        entry({ startedAt: T0, url: "https://a.gov/Agendas/2026%_x" }),
        entry({
          startedAt: T0 + 1000,
          site: "b.gov",
          origin: "https://b.gov",
          url: "https://b.gov/",
        }),
        entry({ startedAt: T0 + 2000, source: "other", url: "https://a.gov/minutes" }),
        entry({ startedAt: T0 + 3000, url: "https://a.gov/agendas/y" }),
      ]);
      const starts = async (f: Parameters<SqlRequestLog["query"]>[0]) =>
        (await log.query(f)).map((e) => e.startedAt - T0);
      expect(await starts({ since: T0 + 1000, until: T0 + 3000 })).toEqual([1000, 2000]);
      expect(await starts({ site: "b.gov" })).toEqual([1000]);
      expect(await starts({ site: "example.gov", since: T0 + 1 })).toEqual([2000, 3000]);
      // ASCII case-insensitive on both dialects; % and _ in the text match only themselves.
      expect(await starts({ urlContains: "AGENDAS" })).toEqual([0, 3000]);
      expect(await starts({ urlContains: "%_" })).toEqual([0]);
      expect(await starts({ urlContains: "a%s" })).toEqual([]);
      expect(await starts({ source: "other" })).toEqual([2000]);
      expect(await starts({ limit: 2 })).toEqual([0, 1000]);
      expect(await starts({ since: T0 + 4000 })).toEqual([]);
    });

    it("P27: appendMany commits all rows of a large batch", async () => {
      const log = new SqlRequestLog((await fresh()).db);
      const many = Array.from({ length: 1234 }, (_, i) => entry({ startedAt: T0 + i }));
      await log.appendMany(many);
      expect(await log.query({ since: T0 + 1200 })).toHaveLength(34);
    });

    it("P27: concurrent appends from many fetchers all land", async () => {
      const log = new SqlRequestLog((await fresh()).db);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => log.append(entry({ startedAt: T0 + i }))),
      );
      expect(await log.query()).toHaveLength(40);
    });

    it("P27: a committed attempt is readable from a second connection at once (crash safety)", async () => {
      const loc = await factory.fresh();
      const writer = await openStore(loc);
      open.push(writer);
      await new SqlRequestLog(writer.db).append(entry({ url: "https://example.gov/x" }));
      // No close, no flush: the writer stays open as if it were killed right now.
      const reader = await openStore(loc);
      open.push(reader);
      const got = await new SqlRequestLog(reader.db).query({ urlContains: "/x" });
      expect(got.map((e) => e.url)).toEqual(["https://example.gov/x"]);
    });

    robotsCacheCases(async () => new SqlRobotsCache((await fresh()).db));
  });
}

/** P16, P20: the robots cache's part of the contract, for every store of it (memory, SQLite, PostgreSQL). */
export function robotsCacheCases(make: () => Promise<RobotsCachePort>): void {
  it("P16: robots cache put/get per origin, and a later put overwrites every field", async () => {
    const cache = await make();
    const rules: CachedRobots = {
      origin: "https://example.gov",
      fetchedAt: T0,
      state: "rules",
      status: 200,
      body: `User-agent: public-records-check\nDisallow: /private\n${"#".repeat(600_000)}\n`,
      etag: '"r1"',
      lastModified: "Wed, 04 Nov 2026 10:00:00 GMT",
    };
    await cache.put(rules);
    expect(await cache.get("https://example.gov")).toStrictEqual(rules);
    // Scheme, host and port make the origin (P16): another port is another file.
    expect(await cache.get("https://example.gov:8443")).toBeUndefined();
    const down: CachedRobots = {
      origin: "https://example.gov",
      fetchedAt: T0 + 86_400_000,
      state: "unreachable",
      status: 503,
      reason: "503 Service Unavailable",
    };
    await cache.put(down);
    expect(await cache.get("https://example.gov")).toStrictEqual(down);
    const allowAll: CachedRobots = {
      origin: "http://example.gov:8080",
      fetchedAt: T0,
      state: "allow-all",
      status: 404,
    };
    await cache.put(allowAll);
    expect(await cache.get("http://example.gov:8080")).toStrictEqual(allowAll);
    expect((await cache.get("https://example.gov"))?.state).toBe("unreachable");
    // P16, P20: a night's unreachable replaced by one found outside a night (`nor discover`)
    // keeps no night: the later answer holds as discover's (policy/robots/copy-age.ts).
    await cache.put({ ...down, night: "2026-11-05" });
    expect((await cache.get("https://example.gov"))?.night).toBe("2026-11-05");
    await cache.put({ ...down, fetchedAt: T0 + 2 * 86_400_000 });
    expect(await cache.get("https://example.gov")).toStrictEqual({
      ...down,
      fetchedAt: T0 + 2 * 86_400_000,
    });
  });
}
