import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const CV =
  "https://pub-chulavista.escribemeetings.com/MeetingsCalendarView.aspx/GetCalendarMeetings";
const NOW = Date.UTC(2026, 0, 15, 12);

describe("escribe preset", () => {
  it("P4: the first request is the GetCalendarMeetings PageMethod POST over a two-year window", () => {
    const r = preset("escribe").firstRequest("https://pub-chulavista.escribemeetings.com/", NOW);
    expect(r).toEqual({
      method: "POST",
      url: CV,
      body: JSON.stringify({ calendarStartDate: "2025-01-15", calendarEndDate: "2027-01-15" }),
      contentType: "application/json; charset=utf-8",
      accept: "application/json",
    });
  });

  it("P6: Chula Vista's 1 meeting, slash dates read, document links resolved against the site root", () => {
    const x = run("escribe", "escribe/CA_chula_vista_GetCalendarMeetings.json", CV);
    expect(x.meetings).toEqual(["3a6304b5-97b9-4bcc-aecd-72b8c188e73c"]);
    expect(x.records[0]).toEqual({
      id: "3a6304b5-97b9-4bcc-aecd-72b8c188e73c#56974",
      title: "Board of Ethics Regular Meeting",
      date: "2025-12-17T17:15:00-08:00",
      url: "https://pub-chulavista.escribemeetings.com/FileStream.ashx?DocumentId=56974",
      kind: "agendas",
    });
    expect(x.records[1]).toMatchObject({
      id: "3a6304b5-97b9-4bcc-aecd-72b8c188e73c#56975",
      kind: "agendas",
    });
    expect(
      x.records.every((r) => r.url?.startsWith("https://pub-chulavista.escribemeetings.com/")),
    ).toBe(true);
    expect(x.records.some((r) => r.url?.includes("/MeetingsCalendarView.aspx/FileStream"))).toBe(
      false,
    );
  });

  it("P7: the next request is the year before the last window; an empty window ends backfill", () => {
    const p = preset("escribe");
    const first = p.firstRequest(CV, NOW);
    const x = run("escribe", "escribe/CA_chula_vista_GetCalendarMeetings.json", CV);
    const n = p.nextRequest!(first, x.body, x)!;
    expect(JSON.parse(n.body!)).toEqual({
      calendarStartDate: "2024-01-16",
      calendarEndDate: "2025-01-14",
    });
    const empty = p.extract(new TextEncoder().encode('{"d":[]}'), CV);
    expect(empty.records).toEqual([]);
    expect(p.nextRequest!(n, new Uint8Array(), empty)).toBeUndefined();
  });

  it("an ASP.NET `/Date(ms)/` StartDate (PageMethods' DateTime form) is an instant, shown in New York time", () => {
    // Not in the Chula Vista capture; the same PageMethod serialiser writes DateTime this way.
    const body = JSON.stringify({
      d: [
        {
          ID: "m1",
          MeetingName: "Council",
          StartDate: "/Date(1708527600000)/",
          Url: "Meeting?Id=m1",
        },
      ],
    });
    const x = preset("escribe").extract(new TextEncoder().encode(body), CV);
    expect(x.records).toEqual([
      {
        id: "m1",
        title: "Council",
        date: "2024-02-21T10:00:00-05:00",
        url: "https://pub-chulavista.escribemeetings.com/Meeting?Id=m1",
        kind: "meetings",
      },
    ]);
  });
});
