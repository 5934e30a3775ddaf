import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds } from "../../src/ids.js";
import { latestCapture } from "../../src/store/archive/captures.js";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import type { Db } from "../../src/store/db.js";
import { GroupCommit } from "../../src/store/group-commit.js";
import type { Tx } from "../../src/store/write-txn.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

/**
 * P8, P12: a page sent again whole (its site ignores the validators it was sent) is kept as a
 * revisit of the copy the conditional request was built from, whatever the URL's latest capture
 * is: here a form's POST answer at the same URL, another body, came between. Before, only the
 * latest capture was looked at, and the page's payload was stored again in full. What the
 * archive notes of a URL's copies never makes it store in full what it would have kept as a
 * revisit (an error page sent again; a lookup made while a copy waited for its commit).
 */
const T0 = Date.UTC(2026, 10, 5, 6, 0, 0);
const URL_ = "http://127.0.0.2/agendas";
const PAGE = `<ul>${"<li>Council agenda</li>".repeat(20)}</ul>`;
const opened: { t: TempStore; a: WarcArchive; copies: ArchiveValidators }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.copies.close();
    await o.a.close();
    await o.t.cleanup();
  }
});

/** A fresh store's archive at T0, and the validators read from it; `group` for the archive. */
async function archive(group?: (db: Db) => GroupCommit) {
  const t = await tempStore();
  const clock = new ManualClock(T0);
  const a = await WarcArchive.open(t.archiveDir, {
    db: t.store.db,
    clock,
    ids: new CounterIds(),
    ...(group ? { group: group(t.store.db) } : {}),
  });
  const copies = new ArchiveValidators(t.store.db, t.archiveDir);
  opened.push({ t, a, copies });
  const latest = (at?: number) => latestCapture(t.store.db, URL_, at === undefined ? {} : { at });
  return { clock, a, copies, latest };
}

describe("a page sent again whole", () => {
  it("P8, P12: is a revisit of the copy its validators came from, a POST answer at the URL since notwithstanding", async () => {
    const { clock, a, copies, latest } = await archive();
    await a.write(exchange(URL_, PAGE, { at: clock.now(), headers: { etag: '"v1"' } }));
    await clock.advance(5_000);
    const post = exchange(URL_, "<p>results of a search</p>", { at: clock.now() });
    post.request.method = "POST";
    post.request.body = "q=agenda";
    await a.write(post);
    await clock.advance(5_000);
    // Tonight's conditional request is built from the GET copy.
    expect(await copies.get(URL_)).toEqual({ etag: '"v1"' });
    // The site sends the page again in full, the same bytes.
    await a.write(exchange(URL_, PAGE, { at: clock.now(), headers: { etag: '"v1"' } }));
    const last = await latest();
    expect(last?.method).toBe("GET");
    expect(last?.recordType).toBe("revisit");
    expect(last?.refersTo?.offset).toBe((await latest(T0))?.offset);
  });
});

describe("what the archive notes of a URL's copies", () => {
  it("P8: an error page sent again the same is a revisit, though no page copy was found before it", async () => {
    const { clock, a, copies, latest } = await archive();
    const missing = `<h1>Not found</h1>${"<p>The page you asked for is not here.</p>".repeat(40)}`;
    await a.write(exchange(URL_, missing, { at: clock.now(), status: 404 }));
    await clock.advance(86_400_000);
    // Tonight's check asks for a copy of the page first: there is none (a 404 is not one).
    expect(await copies.storedSince(URL_, T0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    await a.write(exchange(URL_, missing, { at: clock.now(), status: 404 }));
    expect((await latest())?.recordType).toBe("revisit");
  });

  it("P8: a lookup made while a copy waited for its commit does not keep the copy from being found", async () => {
    // A group commit held at a gate: the copy's row waits, as it does behind other lanes' writes.
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => {
      open = r;
    });
    let waiting: () => void = () => {};
    const reached = new Promise<void>((r) => {
      waiting = r;
    });
    class Held extends GroupCommit {
      override run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
        waiting();
        return gate.then(() => super.run(fn));
      }
    }
    const { clock, a, copies, latest } = await archive((db) => new Held(db));
    const first = a.write(exchange(URL_, PAGE, { at: clock.now() }));
    // Asked while the row waits at the gate: none yet.
    await reached;
    expect(await copies.get(URL_)).toBeUndefined();
    open();
    await first;
    await clock.advance(5_000);
    await a.write(exchange(URL_, PAGE, { at: clock.now() }));
    expect((await latest())?.recordType).toBe("revisit");
  });
});
