import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractPage } from "../../src/sources/extract/page.js";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { nor } from "./cli-capture.js";

/**
 * `nor reparse` names, on each changed record's one line, every field that would change with
 * its value stored and its value found now: a record whose date (or kind, or link) alone
 * changed is not shown as `Title → Title`.
 */
const LIST = `<ul>
  <li class="bid"><a href="/bids/1">Road salt</a> <span>2026-11-01</span></li>
  <li class="bid"><a href="/bids/2">Paving</a> <span>2026-11-02</span></li>
  <li class="bid"><a href="/bids/3">Snow plow</a> <span>2026-11-03</span></li>
  <li class="bid"><a href="/bids/4">Council agenda 0</a></li>
  <li class="bid"><a href="/bids/5">Same as stored</a> <span>2026-11-05</span></li>
</ul>`;
const RECIPE = { items: "li.bid", link: "a", title: "a", date: "span" };

describe("nor reparse: what changed, field by field", () => {
  let t: TempStore;
  let catalog: string;
  // Nothing listens there: reparse never fetches.
  const base = "http://127.0.0.1:9";
  const url = `${base}/bids`;
  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange(url, LIST, { source: "city-bids" }));
    await a.close();
    catalog = join(t.dataDir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: city-of-x, name: City of X, kind: city, county: Summit }
sources:
  - id: city-bids
    government: city-of-x
    records: bids
    access: page
    url: "${url}"
    extract: { items: "li.bid", link: a, title: a, date: span }
`,
    );
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("a changed line names each field that changed, before → after, one line per record, the same run after run", async () => {
    const now = extractPage(new TextEncoder().encode(LIST), url, RECIPE).records;
    expect(now).toHaveLength(5);
    const [salt, paving, plow, agenda, same] = now as [
      (typeof now)[0],
      (typeof now)[0],
      (typeof now)[0],
      (typeof now)[0],
      (typeof now)[0],
    ];
    const row = (
      r: (typeof now)[0],
      over: { title?: string; date?: string | null; url?: string | null; kind?: string | null },
    ) => ({
      source_id: "city-bids",
      record_id: r.id,
      title: over.title ?? r.title,
      date: over.date === undefined ? (r.date ?? null) : over.date,
      url: over.url === undefined ? (r.url ?? null) : over.url,
      kind: over.kind === undefined ? (r.kind ?? null) : over.kind,
      first_seen_night: "2026-11-04",
      first_seen_at: "2026-11-04T08:00:00.000Z",
    });
    await t.store.db
      .insertInto("records")
      .values([
        // Only the date: the page now gives another.
        row(salt, { date: "2026-10-31" }),
        // The title and the link.
        row(paving, { title: "Paving (old title)", url: `${base}/old/2` }),
        // Only the kind.
        row(plow, { kind: "minutes" }),
        // A date stored that the page no longer gives.
        row(agenda, { date: "2026-11-05" }),
        row(same, {}),
      ])
      .execute();

    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const changed = r.stdout.split("\n").filter((l) => l.startsWith("  ~ "));
    const kind = (v: string | undefined) => v ?? "(none)";
    expect(changed).toEqual([
      `  ~ ${salt.id}  date: 2026-10-31 → ${salt.date}`,
      `  ~ ${paving.id}  Paving (old title) → Paving  url: ${base}/old/2 → ${paving.url}`,
      `  ~ ${plow.id}  kind: minutes → ${kind(plow.kind)}`,
      `  ~ ${agenda.id}  date: 2026-11-05 → (none)`,
    ]);
    expect(agenda.date).toBeUndefined();
    expect(r.stdout).toContain(
      "city-bids: 1 capture read, 5 records found now, 5 stored — would add 0, would remove 0, would change 4\n",
    );
    // Nothing written: the same again.
    const again = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(again.stdout).toBe(r.stdout);
  });

  it("a title that differs only in what is not shown is no change; a line break in a value keeps the record on one line", async () => {
    const now = extractPage(new TextEncoder().encode(LIST), url, RECIPE).records;
    const salt = now[0]!;
    const paving = now[1]!;
    await t.store.db
      .insertInto("records")
      .values([
        {
          source_id: "city-bids",
          record_id: salt.id,
          title: `Road\u0007 salt`,
          date: salt.date ?? null,
          url: salt.url ?? null,
          kind: salt.kind ?? null,
          first_seen_night: "2026-11-04",
          first_seen_at: "2026-11-04T08:00:00.000Z",
        },
        {
          source_id: "city-bids",
          record_id: paving.id,
          title: "Paving",
          date: "2026-11-02\nsecond line",
          url: paving.url ?? null,
          kind: paving.kind ?? null,
          first_seen_night: "2026-11-04",
          first_seen_at: "2026-11-04T08:00:00.000Z",
        },
      ])
      .execute();
    const r = await nor("reparse", "--data", t.dataDir, "--catalog", catalog);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const changed = r.stdout.split("\n").filter((l) => l.startsWith("  ~ "));
    expect(changed).toEqual([`  ~ ${paving.id}  date: 2026-11-02 second line → ${paving.date}`]);
  });
});
