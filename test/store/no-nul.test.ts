/**
 * No U+0000 reaches the store (src/store/no-nul.ts): PostgreSQL's text refuses it (22021), so
 * every statement's string parameters carry U+FFFD instead, on both dialects alike, and a
 * robots.txt body keeps its NULs as `%00` (robots-cache.ts), which parses to the same verdict.
 */
import { afterAll, describe, expect, it } from "vitest";
import { isAllowed, parseRobots, policyFor } from "../../src/policy/robots/index.js";
import { openPostgresPool, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { parametersWithoutNul } from "../../src/store/no-nul.js";
import { openReadPool } from "../../src/store/read-pool.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { postgresFactory, postgresUrl, sqliteFactory } from "./stores.js";

const factories = [sqliteFactory(), ...(postgresUrl ? [postgresFactory(postgresUrl)] : [])];

const ORIGIN = "https://a\u0000.example";
const row = (origin: string, reason: string) => ({
  origin,
  fetched_at: "2026-11-05T08:00:00.000Z",
  state: "unreachable" as const,
  status: null,
  body: null,
  etag: null,
  last_modified: null,
  reason,
  night: null,
});

describe("parametersWithoutNul", () => {
  it("hands back the same array when no string holds a NUL (the fast path)", () => {
    const ps = ["a", 1, null, Buffer.from([0]), "b\uFFFD"];
    expect(parametersWithoutNul(ps)).toBe(ps);
  });
  it("maps U+0000 in every string, and only there", () => {
    const buf = Buffer.from([0, 1]);
    const ps = ["a", "b\u0000c\u0000", 7, buf, "\u0000"];
    const out = parametersWithoutNul(ps);
    expect(out).toEqual(["a", "b\uFFFDc\uFFFD", 7, buf, "\uFFFD"]);
    expect(out[3]).toBe(buf);
    expect(ps[1]).toBe("b\u0000c\u0000");
  });
});

for (const factory of factories) {
  describe(`${factory.name}: a site's NUL in the store`, () => {
    afterAll(() => factory.cleanup());

    it("P13: a NUL in a key and a text is written as U+FFFD; a read with the NUL finds it (query, stream, raw sql, transaction)", async () => {
      const store = await openStore(await factory.migrated());
      try {
        await store.db.transaction().execute(async (trx) => {
          await trx.insertInto("robots_cache").values(row(ORIGIN, "bad\u0000 byte")).execute();
        });
        const found = await store.db
          .selectFrom("robots_cache")
          .select(["origin", "reason"])
          .where("origin", "=", ORIGIN)
          .execute();
        expect(found).toEqual([{ origin: "https://a\uFFFD.example", reason: "bad\uFFFD byte" }]);
        if (store.dialect === "sqlite") {
          // Streaming is SQLite's only (the PostgreSQL dialect is made without a cursor).
          const streamed: unknown[] = [];
          for await (const r of store.db
            .selectFrom("robots_cache")
            .select("reason")
            .where("reason", "=", "bad\u0000 byte")
            .stream())
            streamed.push(r);
          expect(streamed).toEqual([{ reason: "bad\uFFFD byte" }]);
        }
        const raw = await sql<{ n: number | string }>`select count(*) as n from robots_cache
          where origin = ${ORIGIN}`.execute(store.db);
        expect(Number(raw.rows[0]?.n)).toBe(1);
      } finally {
        await store.close();
      }
    });

    it("the web's read pool sends no NUL either (a search for text holding one finds it)", async () => {
      const loc = await factory.fresh();
      const store = await openStore(loc);
      const reads =
        loc.kind === "sqlite"
          ? await openReadPool(loc.dir)
          : await openPostgresPool(loc.url, 1, "nor-test-no-nul");
      try {
        await store.db.insertInto("robots_cache").values(row(ORIGIN, "r")).execute();
        const found = await reads
          .selectFrom("robots_cache")
          .select("origin")
          .where("origin", "=", ORIGIN)
          .execute();
        expect(found).toEqual([{ origin: "https://a\uFFFD.example" }]);
      } finally {
        await reads.destroy();
        await store.close();
      }
    });

    it("P16, P17: a robots.txt body's NUL is cached as %00, and the cached body gives the fetched body's verdict", async () => {
      const store = await openStore(await factory.migrated());
      try {
        const fetched = "User-agent: *\nDisallow: /a\u0000\nDisallow: /b%\u0000x\nAllow: /\n";
        const cache = new SqlRobotsCache(store.db);
        await cache.put({
          origin: "https://b.example",
          fetchedAt: Date.UTC(2026, 10, 5, 8),
          state: "rules",
          status: 200,
          body: fetched,
        });
        const cached = (await cache.get("https://b.example"))?.body ?? "";
        expect(cached).toBe("User-agent: *\nDisallow: /a%00\nDisallow: /b%%00x\nAllow: /\n");
        const verdicts = (body: string) => {
          const policy = policyFor(parseRobots(body), "nor");
          return ["/a%00", "/a%EF%BF%BD", "/a", "/b%25%00x", "/c"].map((p) => isAllowed(policy, p));
        };
        expect(verdicts(cached)).toEqual(verdicts(fetched));
        expect(verdicts(fetched)).toEqual([false, true, true, false, true]);
      } finally {
        await store.close();
      }
    });
  });
}
