import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { GroupCommit } from "../../src/store/group-commit.js";
import type { Tx } from "../../src/store/write-txn.js";
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

describe("what the archive notes of a URL's copies", () => {
  it("P8: an error page sent again the same is a revisit, though no page copy was found before it", async () => {
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
      const missing = `<h1>Not found</h1>${"<p>The page you asked for is not here.</p>".repeat(40)}`;
      await a.write(exchange(URL_, missing, { at: clock.now(), status: 404 }));
      await clock.advance(86_400_000);
      // Tonight's check asks for a copy of the page first: there is none (a 404 is not one).
      expect(await copies.storedSince(URL_, T0)).toBeUndefined();
      await a.write(exchange(URL_, missing, { at: clock.now(), status: 404 }));
      expect((await latestCapture(t.store.db, URL_))?.recordType).toBe("revisit");
    } finally {
      await copies.close();
      await a.close();
    }
  });

  it("P8: a lookup made while a copy waited for its commit does not keep the copy from being found", async () => {
    const t = await tempStore();
    stores.push(t);
    const clock = new ManualClock(T0);
    // A group commit held at a gate: the copy's row waits, as it does behind other lanes' writes.
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => {
      open = r;
    });
    class Held extends GroupCommit {
      override run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
        return gate.then(() => super.run(fn));
      }
    }
    const held = new Held(t.store.db);
    const a = await WarcArchive.open(t.archiveDir, {
      db: t.store.db,
      clock,
      ids: new CounterIds(),
      group: held,
    });
    const copies = new ArchiveValidators(t.store.db, t.archiveDir);
    try {
      const page = `<ul>${"<li>Council agenda</li>".repeat(20)}</ul>`;
      const first = a.write(exchange(URL_, page, { at: clock.now() }));
      // Asked while the row waits: none yet.
      await new Promise((r) => setTimeout(r, 20));
      expect(await copies.get(URL_)).toBeUndefined();
      open();
      await first;
      await clock.advance(5_000);
      await a.write(exchange(URL_, page, { at: clock.now() }));
      expect((await latestCapture(t.store.db, URL_))?.recordType).toBe("revisit");
    } finally {
      await copies.close();
      await a.close();
    }
  });
});
