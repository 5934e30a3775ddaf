import { describe, expect, it } from "vitest";
import { type Capture, insertCaptures, latestCapture } from "../../src/store/archive/captures.js";
import type { Db } from "../../src/store/db.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "../store/stores.js";

const factories = storeFactories();

const URL = "http://a.example/list";
const capture = (night: number, status: number): Capture => ({
  recordId: `<urn:uuid:${night}-${status}>`,
  url: URL,
  fetchedAt: Date.UTC(2026, 0, 1) + night * 86_400_000,
  file: "f.warc.gz",
  offset: night * 1000,
  length: 900,
  recordType: status === 304 ? "revisit" : "response",
  method: "GET",
  status,
  payloadDigest: `sha256:${night}`,
  payloadLength: 10,
  etag: `"${night}"`,
  purpose: "page",
});

/** Rows each statement brought back from the driver. */
function counting(db: Db): { db: Db; rows: number[] } {
  const rows: number[] = [];
  const wrapped = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === "executeQuery")
        return async (q: Parameters<Db["executeQuery"]>[0]) => {
          const r = await target.executeQuery(q);
          rows.push(r.rows.length);
          return r;
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { db: wrapped, rows };
}

/**
 * P12, P8: the latest capture of a URL is asked before every conditional request, behind every
 * 304 and before every answer the archive keeps. A page read every night has a capture a night:
 * the statement brings back the one row it needs, not every night's.
 */
describe.each(factories)("the latest capture, one row: $name", (factory) => {
  it("P12: a URL with a year of captures: one row comes back, the latest", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const all = Array.from({ length: 365 }, (_, n) => capture(n, n % 2 === 0 ? 304 : 200));
      for (let i = 0; i < all.length; i += 50) await insertCaptures(store.db, all.slice(i, i + 50));
      const { db, rows } = counting(store.db);
      const body = await latestCapture(db, URL, { withBody: true, method: "GET" });
      const any = await latestCapture(db, URL);
      expect(body?.etag).toBe('"363"');
      expect(any?.etag).toBe('"364"');
      expect(rows).toEqual([1, 1]);
    } finally {
      await store.close();
    }
  });
});
