import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * P6, migration 022: a record whose site wrote its link anew (an https move, files moved) takes
 * the new link as its id and keeps the one it was first listed under; its feed entries and
 * calendar events are named by that one, so a feed reader or a calendar does not show it again.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
  await f.store.db
    .insertInto("records")
    .values({
      source_id: "akron-minutes",
      record_id: "https://akron.example/docs/View/31",
      first_id: "http://akron.example/files/council-11-20.pdf",
      title: "Council meeting minutes moved",
      date: "2026-11-20",
      url: "https://akron.example/docs/View/31",
      kind: "meetings",
      first_seen_night: "2026-11-05",
      first_seen_at: "2026-11-05T06:30:00.000Z",
    })
    .execute();
});
afterAll(async () => {
  await f?.close();
});

const FIRST = `urn:new-on-record:record:akron-minutes:${encodeURIComponent("http://akron.example/files/council-11-20.pdf")}`;

describe("P6: a record's feed entries keep the id it was first listed under", () => {
  it("in /new's feeds and a search's, and as the calendar's event", async () => {
    const ids = async (path: string) =>
      ((await (await f.app.request(path)).json()) as { items: { id: string }[] }).items.map(
        (i) => i.id,
      );
    expect(await ids("/new.json?window=30d")).toContain(FIRST);
    // P26: the search's selection, the whole state, holds akron-minutes, not read: its notice
    // item comes first, then the record.
    expect((await ids("/search.json?q=moved")).filter((id) => !id.includes(":not-read:"))).toEqual([
      FIRST,
    ]);
    // Unfolded (RFC 5545 §3.1: a long line goes on after CRLF and a space).
    const ics = (await (await f.app.request("/meetings.ics")).text()).replace(/\r\n[ \t]/g, "");
    expect(ics).toContain(
      `UID:akron-minutes.${encodeURIComponent("http://akron.example/files/council-11-20.pdf")}@new-on-record`,
    );
    // The API names the record as it is now.
    const api = (await (await f.app.request("/api/search?q=moved")).json()) as {
      records: { recordId: string }[];
    };
    expect(api.records.map((r) => r.recordId)).toEqual(["https://akron.example/docs/View/31"]);
  });
});
