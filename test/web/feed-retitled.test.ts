import { parseAtomFeed, parseJsonFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { buildFixture, catalog, type Fixture, ORIGIN } from "./fixture.js";

/**
 * P6: a record the list now shows otherwise (a bid or meeting retitled "CANCELLED", redated) is
 * brought up to date, never new again (docs/promises.md). A feed names it by the same id, so a
 * reader that has it keeps it unless the feed says it changed: RFC 4287 §4.2.15 (an entry's
 * `atom:updated` is "the most recent instant in time when an entry … was modified in a way the
 * publisher considers significant"), JSON Feed 1.1's `date_modified`, and RFC 5545 §3.8.7.2 (an
 * event's DTSTAMP, in a calendar without METHOD, is when it was "last revised in the calendar
 * store"). Before, each said when the record was first seen, so a reader kept the old title.
 */
let f: Fixture;
/** The night after the fixture's: 2026-11-06, 23:00 in Ohio. */
const CHANGED_AT = Date.parse("2026-11-07T04:00:00.000Z");
const LATER = Date.parse("2026-11-07T15:00:00.000Z");
const RETITLED = "https://test.example/r/12";
const UNCHANGED = "https://test.example/r/22";
const id = (recordId: string) =>
  `urn:new-on-record:record:test-agendas:${encodeURIComponent(recordId)}`;

beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

const app = () => createApp({ db: f.store.db, now: () => LATER, origin: ORIGIN });

async function entries() {
  const a = app();
  const atom = parseAtomFeed(await (await a.request("/new.atom?window=7d")).text());
  const json = parseJsonFeed(await (await a.request("/new.json?window=7d")).text());
  const ics = (await (await a.request("/meetings.ics")).text()).replace(/\r\n[ \t]/g, "");
  return { atom, json, ics };
}

describe("P6: a record retitled or redated after it was new: the feeds and the calendar say it changed", () => {
  it("Atom's updated and JSON Feed's date_modified move to when it changed; published stays; the calendar's DTSTAMP too", async () => {
    const before = await entries();
    const was = before.atom.entries?.find((e) => e.id === id(RETITLED));
    expect(was?.title?.value).toBe("Record 12");
    const firstSeen = was?.updated;
    expect(firstSeen).toBeDefined();

    // The next night the list shows record 12 retitled and moved to a later day; 22 as it was.
    const night = new SqlNightStore(f.store.db);
    const start = CHANGED_AT - 60_000;
    await night.openNight("2026-11-06", start, start + 6 * 3_600_000);
    await night.syncSources(
      catalog().sources.map((s) => ({
        id: s.id,
        government: s.government,
        url: s.url,
        site: new URL(s.url).origin,
      })),
      start,
    );
    await night.commit("2026-11-06", {
      sourceId: "test-agendas",
      outcome: { kind: "ok", url: "https://test.example/agendas.rss" },
      way: { used: { access: "feed", url: "https://test.example/agendas.rss" }, skipped: [] },
      records: [
        {
          id: RETITLED,
          title: "CANCELLED: Record 12",
          date: "2026-11-20",
          url: RETITLED,
          kind: "agendas",
        },
        { id: UNCHANGED, title: "Record 22", date: "2026-11-04T23:30:00.000Z", url: UNCHANGED },
      ],
      validators: [],
      flags: [],
      startedAt: CHANGED_AT - 1000,
      endedAt: CHANGED_AT,
    });
    await night.finishNight("2026-11-06", CHANGED_AT + 60_000);

    const after = await entries();
    const changed = new Date(CHANGED_AT).toISOString();
    const entry = after.atom.entries?.find((e) => e.id === id(RETITLED));
    expect(entry?.title?.value).toBe("CANCELLED: Record 12");
    expect(entry?.updated).toBe(changed);
    expect(entry?.published).toBe(firstSeen);
    // Not new again: the same one entry, and the feed itself updated when it changed.
    expect(after.atom.entries?.filter((e) => e.id === id(RETITLED))).toHaveLength(1);
    expect(after.atom.updated).toBe(changed);
    // A record shown as it was keeps its time.
    const same = after.atom.entries?.find((e) => e.id === id(UNCHANGED));
    const sameBefore = before.atom.entries?.find((e) => e.id === id(UNCHANGED));
    expect(same?.updated).toBe(sameBefore?.updated);
    expect(same?.published).toBe(sameBefore?.updated);

    const item = after.json.items?.find((i) => i.id === id(RETITLED));
    expect(item?.title).toBe("CANCELLED: Record 12");
    expect(item?.date_published).toBe(firstSeen);
    expect(item?.date_modified).toBe(changed);
    const sameItem = after.json.items?.find((i) => i.id === id(UNCHANGED));
    expect(sameItem?.date_modified).toBeUndefined();

    // The calendar: the meeting, now on the 20th, last revised when it changed.
    const event = after.ics
      .split("BEGIN:VEVENT")
      .find((e) => e.includes(`UID:test-agendas.${encodeURIComponent(RETITLED)}@new-on-record`));
    expect(event).toContain("SUMMARY:CANCELLED: Record 12");
    expect(event).toContain("DTSTAMP:20261107T040000Z");
  });
});
