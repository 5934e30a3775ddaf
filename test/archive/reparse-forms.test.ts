/**
 * `nor reparse` over a form source's copies (P5, P8): the blank form page is no list, a form
 * that submits with GET has its results read, and a one-page form posted every night still
 * has what it no longer lists called removed (only result pages an earlier check posted and
 * the last did not leave that unknown).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Source } from "../../src/sources/catalog/types.js";
import { reparse } from "../../src/store/archive/reparse.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "./support/fixtures.js";

const stores: TempStore[] = [];
afterEach(async () => {
  for (const t of stores.splice(0)) await t.cleanup();
});

const FORM = "http://127.0.0.2/search";
const source: Source = {
  id: "f",
  government: "g",
  records: "permits",
  url: FORM,
  access: "form",
  form: {},
  extract: { items: "li", title: "a" } as never,
  alternates: [],
  backfill: { pagesPerNight: 0 },
  confirmed: false,
};
/** Records as the page's body lists them: `a,b` → records a and b. */
const extract = (_s: Source, _w: unknown, stored: { body: Uint8Array }) => ({
  records: new TextDecoder()
    .decode(stored.body)
    .split(",")
    .filter(Boolean)
    .map((id) => ({ id, title: id })),
});

async function world(
  checks: { at: number; pages: { method: "GET" | "POST"; url: string; body: string }[] }[],
  stored: string[],
) {
  const t = await tempStore();
  stores.push(t);
  const archive = await WarcArchive.open(t.archiveDir, t.archiveOptions);
  const db = t.store.db;
  for (const [n, c] of checks.entries()) {
    for (const [i, p] of c.pages.entries()) {
      const ex = exchange(p.url, p.body, { at: c.at + i * 10, source: "f", purpose: "form" });
      ex.request.method = p.method;
      await archive.write(ex);
    }
    const iso = (ms: number) => new Date(ms).toISOString();
    await db
      .insertInto("night_sources")
      .values({
        night: `2026-11-0${n + 5}`,
        source_id: "f",
        outcome: "ok",
        reason: null,
        evidence: null,
        status: 200,
        url: FORM,
        way: JSON.stringify({ used: { access: "form", url: FORM }, skipped: [] }),
        records_found: 0,
        new_records: 0,
        started_at: iso(c.at - 1),
        ended_at: iso(c.at + 1000),
        duration_ms: 1001,
      })
      .execute();
  }
  for (const id of stored) {
    await db
      .insertInto("records")
      .values({
        source_id: "f",
        record_id: id,
        title: id,
        date: null,
        url: null,
        kind: null,
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-05T08:00:00.000Z",
      })
      .execute();
  }
  await archive.close();
  const [r] = await reparse({
    db,
    archiveDir: t.archiveDir,
    sources: [source],
    extract: extract as never,
  });
  return r!;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 5, 8);

describe("reparse of a form's copies", () => {
  it("P5, P8: a form that submits with GET: its blank page is left out, its results read, and what they no longer list called removed", async () => {
    const r = await world(
      [
        {
          at: T0,
          pages: [
            { method: "GET", url: FORM, body: "" },
            { method: "GET", url: `${FORM}?q=bids`, body: "a,b" },
          ],
        },
      ],
      ["a", "b", "gone"],
    );
    expect([r.captures, r.found, r.removed.map((x) => x.id)]).toEqual([1, 2, ["gone"]]);
    expect(r.notes).toEqual([]);
  });

  it("P5, P8: a one-page form posted every night: what it no longer lists is called removed, with no note", async () => {
    const r = await world(
      [
        {
          at: T0,
          pages: [
            { method: "GET", url: FORM, body: "" },
            { method: "POST", url: FORM, body: "a,b,gone" },
          ],
        },
        {
          at: T0 + DAY,
          pages: [
            { method: "GET", url: FORM, body: "" },
            { method: "POST", url: FORM, body: "a,b" },
          ],
        },
      ],
      ["a", "b", "gone"],
    );
    expect([r.captures, r.found, r.removed.map((x) => x.id)]).toEqual([1, 2, ["gone"]]);
    expect(r.notes).toEqual([]);
  });
});
