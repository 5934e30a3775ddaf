/**
 * ArchiveValidators looks a page up in the index once for the three questions a source's page
 * asks (stored tonight? its validators? after a 304, its copy), and again as soon as this
 * process archives anything: what it answers is what asking the index each time answers.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { validatorsFor } from "../../src/store/archive/captures.js";
import { ArchiveValidators } from "../../src/store/archive/validators.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { directOfStore } from "../../src/store/sqlite-direct.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

const URL_A = "http://127.0.0.2/agendas.rss";
const CAPTURES = /^select .* from "captures"/;
const T0 = Date.UTC(2026, 10, 5, 8, 0, 0);
/** "Now" for the questions that are not about the clock: a day after every copy here. */
const NOW = T0 + 86_400_000;

const stores: TempStore[] = [];
afterEach(async () => {
  for (const t of stores.splice(0)) await t.cleanup();
});

async function setUp() {
  const t = await tempStore();
  stores.push(t);
  const archive = await WarcArchive.open(t.archiveDir, t.archiveOptions);
  const copies = new ArchiveValidators(t.store.db, t.archiveDir);
  // Through kysely, or straight on the SQLite connection (src/store/sqlite-direct.ts).
  const lookups = vi.spyOn(t.store.db, "executeQuery");
  const direct = directOfStore(t.store.db);
  const straight = direct ? vi.spyOn(direct, "execute") : undefined;
  const capturesRead = () =>
    lookups.mock.calls.filter(([q]) => "sql" in q && CAPTURES.test(q.sql)).length +
    (straight?.mock.calls.filter(([sql]) => CAPTURES.test(sql)).length ?? 0);
  return { t, archive, copies, capturesRead };
}

describe("the archive's copies and validators: one lookup of the index a page", () => {
  it("P8, P12: stored tonight, validators, copy after a 304: one read of the index", async () => {
    const { archive, copies, capturesRead } = await setUp();
    await archive.write(exchange(URL_A, "<rss>one</rss>", { at: T0, headers: { etag: '"v1"' } }));
    const before = capturesRead();
    expect(await copies.storedSince(URL_A, T0 + 1, NOW)).toBeUndefined();
    expect(await copies.get(URL_A)).toEqual({ etag: '"v1"' });
    const copy = await copies.storedCopy(URL_A);
    expect(copy && "body" in copy && new TextDecoder().decode(copy.body)).toBe("<rss>one</rss>");
    expect(capturesRead() - before).toBe(1);
    // "Stored tonight?" decides whether a page is asked for at all: it reads the index again
    // (another process may have stored the page since: validators-other-process.test.ts).
    expect(await copies.storedSince(URL_A, T0, NOW)).toMatchObject({ url: URL_A });
    expect(capturesRead() - before).toBe(2);
    await archive.close();
    await copies.close();
  });

  it("P8, P12: a copy archived since is the one answered: the index is read again", async () => {
    const { t, archive, copies, capturesRead } = await setUp();
    await archive.write(exchange(URL_A, "<rss>one</rss>", { at: T0, headers: { etag: '"v1"' } }));
    expect(await copies.get(URL_A)).toEqual({ etag: '"v1"' });
    await archive.write(
      exchange(URL_A, "<rss>two</rss>", { at: T0 + 60_000, headers: { etag: '"v2"' } }),
    );
    const before = capturesRead();
    expect(await copies.storedSince(URL_A, T0 + 120_000, NOW)).toBeUndefined();
    expect(await copies.get(URL_A)).toEqual({ etag: '"v2"' });
    const copy = await copies.storedCopy(URL_A);
    expect(copy && "body" in copy && new TextDecoder().decode(copy.body)).toBe("<rss>two</rss>");
    // Ours once since the write for the page's three questions.
    expect(capturesRead() - before).toBe(1);
    expect(await copies.get(URL_A)).toEqual(await validatorsFor(t.store.db, URL_A));
    expect(await copies.storedSince(URL_A, T0 + 60_000, NOW)).toMatchObject({ url: URL_A });
    await archive.close();
    await copies.close();
  });

  it("P8: a remembered copy whose file is gone is still found lost when it is read", async () => {
    const { t, archive, copies } = await setUp();
    await archive.write(exchange(URL_A, "<rss>one</rss>", { at: T0, headers: { etag: '"v1"' } }));
    await archive.close();
    expect(await copies.get(URL_A)).toEqual({ etag: '"v1"' });
    for (const f of readdirSync(t.archiveDir)) rmSync(join(t.archiveDir, f), { force: true });
    const copy = await copies.storedCopy(URL_A);
    expect(copy).toMatchObject({ lost: expect.any(String) });
    expect(await copies.storedSince(URL_A, T0, NOW)).toBeUndefined();
    await copies.close();
  });

  it("P8, P27: a copy stamped after now (archived by a clock running ahead on an earlier night) is not tonight's answer; tonight's copy, stored since, is (the latest stored by now)", async () => {
    const { archive, copies } = await setUp();
    const DAY = 86_400_000;
    // Last night's caught-up copy, stamped by a clock two days fast.
    await archive.write(exchange(URL_A, "<rss>ahead</rss>", { at: T0 + 2 * DAY }));
    // Tonight began at T0 (the clock set right): nothing of tonight is stored yet.
    expect(await copies.storedSince(URL_A, T0, T0 + 60_000)).toBeUndefined();
    // Tonight's answer stored (then a kill -9 before its source committed): that one is read.
    await archive.write(exchange(URL_A, "<rss>tonight</rss>", { at: T0 + 120_000 }));
    const copy = await copies.storedSince(URL_A, T0, T0 + 180_000);
    expect(copy && new TextDecoder().decode(copy.body)).toBe("<rss>tonight</rss>");
    await archive.close();
    await copies.close();
  });

  it("P8, P13: a copy another night saved is not tonight's answer, whatever its time (a clock ahead stamps it inside tonight's window); the one tonight saved is, and a copy saved by no night is no night's", async () => {
    const { archive, copies } = await setUp();
    // Saved by the night of Nov 3 while the clock ran ahead: stamped inside Nov 5's window.
    await archive.write({
      ...exchange(URL_A, "<rss>other</rss>", { at: T0 + 60_000 }),
      night: "2026-11-03",
    });
    expect(await copies.storedSince(URL_A, T0, T0 + 180_000, "2026-11-05")).toBeUndefined();
    expect(await copies.storedSince(URL_A, T0, T0 + 180_000, "2026-11-03")).toMatchObject({
      url: URL_A,
    });
    // Tonight's own, saved before an earlier night's (stamped later) was: tonight's is read.
    await archive.write({
      ...exchange(URL_A, "<rss>tonight</rss>", { at: T0 + 30_000 }),
      night: "2026-11-05",
    });
    const copy = await copies.storedSince(URL_A, T0, T0 + 180_000, "2026-11-05");
    expect(copy && new TextDecoder().decode(copy.body)).toBe("<rss>tonight</rss>");
    // One saved by no night (nor discover's, or before migration 038) is no night's answer.
    await archive.write(exchange(URL_A, "<rss>none</rss>", { at: T0 + 90_000 }));
    const latest = await copies.storedSince(URL_A, T0, T0 + 180_000, "2026-11-05");
    expect(latest && new TextDecoder().decode(latest.body)).toBe("<rss>tonight</rss>");
    await archive.close();
    await copies.close();
  });
});
