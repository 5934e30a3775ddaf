import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * P8, P12: a page sent again whole (its site ignores the validators it was sent) is kept as a
 * revisit of the copy the conditional request was built from, whatever the URL's latest capture
 * is: here a form's POST answer at the same URL, another body, came between. Before, only the
 * latest capture was looked at, and the page's payload was stored again in full.
 */
const T0 = Date.UTC(2026, 10, 5, 6, 0, 0);
const URL_ = "http://127.0.0.2/agendas";
const stores: TempStore[] = [];
afterEach(async () => {
  for (const t of stores.splice(0)) await t.cleanup();
});

describe("a page sent again whole", () => {
  it("P8, P12: is a revisit of the copy its validators came from, a POST answer at the URL since notwithstanding", async () => {
    const t = await tempStore();
    stores.push(t);
    const clock = new ManualClock(T0);
    const a = await WarcArchive.open(t.archiveDir, {
      db: t.store.db,
      clock,
      ids: new CounterIds(),
    });
    const copies = new ArchiveValidators(t.store.db, t.archiveDir);
    try {
      const page = `<ul>${"<li>Council agenda</li>".repeat(20)}</ul>`;
      await a.write(exchange(URL_, page, { at: clock.now(), headers: { etag: '"v1"' } }));
      await clock.advance(5_000);
      const post = exchange(URL_, "<p>results of a search</p>", { at: clock.now() });
      post.request.method = "POST";
      post.request.body = "q=agenda";
      await a.write(post);
      await clock.advance(5_000);
      // Tonight's conditional request is built from the GET copy.
      expect(await copies.get(URL_)).toEqual({ etag: '"v1"' });
      // The site sends the page again in full, the same bytes.
      await a.write(exchange(URL_, page, { at: clock.now(), headers: { etag: '"v1"' } }));
      const last = await latestCapture(t.store.db, URL_);
      expect(last?.method).toBe("GET");
      expect(last?.recordType).toBe("revisit");
      expect(last?.refersTo?.offset).toBe(
        (await latestCapture(t.store.db, URL_, { at: T0 }))?.offset,
      );
    } finally {
      await copies.close();
      await a.close();
    }
  });
});
