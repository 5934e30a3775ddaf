import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NewRecord, upcomingMeetings } from "../../src/store/read/new-records.js";
import { createApp } from "../../src/web/app.js";
import { icalText, renderIcal } from "../../src/web/public/ical.js";
import { postgresFactory, postgresUrl, sqliteFactory } from "../store/stores.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

const record = (title: string): NewRecord => ({
  sourceId: "s",
  recordId: "r",
  title,
  date: "2026-12-08",
  url: null,
  kind: null,
  firstSeenNight: "2026-12-02",
  firstSeenAt: "2026-12-03T08:00:00.000Z",
  alreadyListed: false,
  sourceName: "Meetings",
  sourceRecords: "meetings",
  governmentId: "g",
  governmentName: "Village of Test",
  governmentKind: "village",
  county: "Franklin",
});

describe("iCalendar text (RFC 5545 §3.3.11)", () => {
  it("keeps characters outside the BMP (a surrogate pair) whole, and removes only lone surrogates and controls", () => {
    expect(icalText("Meeting 😀 at 𝔸 hall")).toBe("Meeting 😀 at 𝔸 hall");
    expect(icalText("lone \uD800 high, lone \uDC00 low, \u0001 control")).toBe(
      "lone  high\\, lone  low\\,  control",
    );
    const ics = renderIcal({
      origin: "https://directory.example",
      name: "Upcoming",
      items: [record(`${"Budget hearing ".repeat(4)}😀 and more 😀😀😀 words`)],
    });
    expect(ics).not.toContain("\uFFFD");
    const unfolded = ics.replace(/\r\n /g, "");
    expect(unfolded).toContain(
      `SUMMARY:${"Budget hearing ".repeat(4)}😀 and more 😀😀😀 words\r\n`,
    );
    // Folding counts octets and never splits a character.
    for (const line of ics.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(Buffer.from(ics, "utf8").toString("utf8")).toBe(ics);
  });
});

/**
 * Records dated after the fixture's Nov 5, beside its own (agendas dated Nov 2–4, a notice dated
 * Nov 5): which of them a calendar of upcoming meetings lists. Kinds as the readers store them:
 * none (the record page's kind then), one of the kinds of records, or the list's own word.
 */
const AHEAD = [
  // On the agendas page of the Village of Test (Franklin County).
  { source_id: "test-agendas", record_id: "agenda", kind: null, date: "2026-11-20", meeting: true },
  { source_id: "test-agendas", record_id: "minutes", kind: "minutes", date: "2026-11-20" },
  { source_id: "test-agendas", record_id: "minutes-word", kind: "Minutes", date: "2026-11-22" },
  {
    source_id: "test-agendas",
    record_id: "own-word",
    kind: "Council",
    date: "2026-11-21T23:00:00.000Z",
    meeting: true,
  },
  // Times written in UTC or with an offset are ordered by the instant they name, and a day is
  // the one in Ohio: 9 pm of Nov 20 written in UTC sorts before 11:30 pm written with its
  // offset, though its text sorts after; 8 pm of Nov 4 (the day before the fixture's today,
  // Nov 5) written in UTC reads as Nov 5 and is not upcoming.
  {
    source_id: "test-agendas",
    record_id: "utc-evening",
    kind: null,
    date: "2026-11-21T02:00:00Z",
    meeting: true,
  },
  {
    source_id: "test-agendas",
    record_id: "local-late",
    kind: null,
    date: "2026-11-20T23:30:00-05:00",
    meeting: true,
  },
  {
    source_id: "test-agendas",
    record_id: "last-night-utc",
    kind: null,
    date: "2026-11-05T01:00:00Z",
  },
  // A meeting platform's documents, each a record: a notice of the meeting, or a file of type
  // Other, may be all a meeting has posted yet; on a page of agendas they are its meeting.
  {
    source_id: "test-agendas",
    record_id: "notice-of-meeting",
    kind: "notices",
    date: "2026-11-23",
    meeting: true,
  },
  {
    source_id: "test-agendas",
    record_id: "other-doc",
    kind: "other",
    date: "2026-11-24",
    meeting: true,
  },
  // On its bids page: a bid's due date is not a meeting; a pre-bid meeting is.
  { source_id: "test-bids", record_id: "bid-notice", kind: "notices", date: "2026-11-20" },
  { source_id: "test-bids", record_id: "bid", kind: "bids", date: "2026-11-20" },
  { source_id: "test-bids", record_id: "bid-unsaid", kind: null, date: "2026-11-20" },
  {
    source_id: "test-bids",
    record_id: "pre-bid",
    kind: "meetings",
    date: "2026-11-19",
    meeting: true,
  },
  // On the City of Akron's minutes page (Summit County).
  {
    source_id: "akron-minutes",
    record_id: "akron-agenda",
    kind: "agendas",
    date: "2026-11-25",
    meeting: true,
  },
  { source_id: "akron-minutes", record_id: "akron-minutes", kind: null, date: "2026-11-25" },
];

async function addAhead(f: Fixture): Promise<void> {
  await f.store.db
    .insertInto("records")
    .values(
      AHEAD.map((r) => ({
        source_id: r.source_id,
        record_id: r.record_id,
        title: `Ahead: ${r.record_id}`,
        date: r.date,
        url: null,
        kind: r.kind,
        first_seen_night: "2026-11-05",
        first_seen_at: "2026-11-06T04:00:05.000Z",
      })),
    )
    .execute();
}

/** The events' UIDs, `source.record`, in the calendar's order. */
const uids = (ics: string) =>
  ics
    .replace(/\r\n /g, "")
    .split("\r\n")
    .filter((l) => l.startsWith("UID:"))
    .map((l) => l.slice(4).replace(/@new-on-record$/, ""));

const sqlite = sqliteFactory();
const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;
const stores = [sqlite, ...(pg ? [pg] : [])];

describe.each(stores)("the calendar lists meetings only ($name)", (factory) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture(await factory.migrated());
    await addAhead(f);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await factory.cleanup();
  });

  it("meetings and agendas dated today or later, by a record's own kind when it says meeting or agenda, never when it says minutes, bid or permit, else by its page's (a notice or other document of a meeting on a page of agendas is its meeting)", async () => {
    const all = await (await f.app.request("/meetings.ics")).text();
    expect(all).toContain("X-WR-CALNAME:Upcoming meetings in Ohio (New on Record)");
    expect(uids(all)).toEqual([
      "test-bids.pre-bid",
      "test-agendas.agenda",
      "test-agendas.utc-evening",
      "test-agendas.local-late",
      "test-agendas.own-word",
      "test-agendas.notice-of-meeting",
      "test-agendas.other-doc",
      "akron-minutes.akron-agenda",
    ]);
    expect(AHEAD.filter((r) => r.meeting).length).toBe(8);
    // The fixture's notice dated today (Nov 5) is not a meeting either.
    expect(all).not.toContain("evil-notices");
  });

  it("last evening's meetings written in UTC never fill the soonest ones: the cap counts meetings of today or later only", async () => {
    // Ohio's midnight of Nov 5 is 05:00 UTC: written in UTC at that second, in any spelling,
    // a meeting is today's and listed.
    const midnight = ["05:00:00+00:00", "05:00:00-00:00", "05:00:00.000-00:00"].map((t, i) => ({
      source_id: "test-agendas",
      record_id: `midnight-${i}`,
      title: `Midnight ${t}`,
      date: `2026-11-05T${t}`,
      url: null,
      kind: null,
      first_seen_night: "2026-11-05",
      first_seen_at: "2026-11-06T04:00:05.000Z",
    }));
    const evening = ["01:00", "02:00", "03:00"].map((t, i) => ({
      source_id: "test-agendas",
      record_id: `evening-${i}`,
      title: `Last evening ${t}`,
      date: `2026-11-05T${t}:00Z`,
      url: null,
      kind: null,
      first_seen_night: "2026-11-05",
      first_seen_at: "2026-11-06T04:00:05.000Z",
    }));
    await f.store.db.insertInto("records").values(evening).execute();
    try {
      const soonest = await upcomingMeetings(f.store.db, "2026-11-05", {}, 2);
      expect(soonest.map((r) => `${r.sourceId}.${r.recordId}`)).toEqual([
        "test-bids.pre-bid",
        "test-agendas.agenda",
      ]);
      await f.store.db.insertInto("records").values(midnight).execute();
      const today = await upcomingMeetings(f.store.db, "2026-11-05", {}, 3);
      expect(today.map((r) => r.recordId).sort()).toEqual([
        "midnight-0",
        "midnight-1",
        "midnight-2",
      ]);
    } finally {
      await f.store.db
        .deleteFrom("records")
        .where(
          "record_id",
          "in",
          [...evening, ...midnight].map((e) => e.record_id),
        )
        .execute();
    }
  });

  it("the county, government and kind-of-records filters narrow the same meetings", async () => {
    const ics = async (q: string) => uids(await (await f.app.request(`/meetings.ics${q}`)).text());
    expect(await ics("?county=Summit")).toEqual(["akron-minutes.akron-agenda"]);
    expect(await ics("?county=Franklin")).toEqual([
      "test-bids.pre-bid",
      "test-agendas.agenda",
      "test-agendas.utc-evening",
      "test-agendas.local-late",
      "test-agendas.own-word",
      "test-agendas.notice-of-meeting",
      "test-agendas.other-doc",
    ]);
    expect(await ics("?government=city-of-akron")).toEqual(["akron-minutes.akron-agenda"]);
    expect(await ics("?government=village-of-test&records=bids")).toEqual(["test-bids.pre-bid"]);
    expect(await ics("?source=test-agendas")).toEqual([
      "test-agendas.agenda",
      "test-agendas.utc-evening",
      "test-agendas.local-late",
      "test-agendas.own-word",
      "test-agendas.notice-of-meeting",
      "test-agendas.other-doc",
    ]);
    expect(await ics("?kind=state-agency")).toEqual([]);
  });
});

describe("the calendar over HTTP", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture();
    await addAhead(f);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("the same records make the same calendar, whatever the clock says: its ETag holds and a client's If-None-Match gets 304", async () => {
    const at = (now: number) => createApp({ db: f.store.db, now: () => now, origin: ORIGIN });
    const first = await at(NOW).request("/meetings.ics?county=Summit");
    const etag = first.headers.get("etag");
    const text = await first.text();
    expect(text).toContain("BEGIN:VEVENT");
    // A minute later (the same day, the same records): the same bytes.
    const later = at(NOW + 60_000);
    const again = await later.request("/meetings.ics?county=Summit");
    expect(await again.text()).toBe(text);
    expect(again.headers.get("etag")).toBe(etag);
    const cached = await later.request("/meetings.ics?county=Summit", {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(cached.status).toBe(304);
    // Each event is stamped with when its record was first seen (RFC 5545 §3.8.7.2).
    const stamps = text.split("\r\n").filter((l) => l.startsWith("DTSTAMP:"));
    expect(stamps.length).toBeGreaterThan(0);
    for (const s of stamps) expect(s).toMatch(/^DTSTAMP:20261106T04\d{4}Z$/);
  });
});
