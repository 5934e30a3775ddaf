import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const TULSA = "https://tulsacook.api.civicclerk.com/v1/Events?$orderby=startDateTime%20desc";
const LACEY = "https://laceywa.api.civicclerk.com/v1/Events";

describe("civicclerk preset", () => {
  it("CivicClerk's local times marked Z are read as wall-clock time in the government's zone (Tulsa: Central), not UTC", () => {
    const x = run("civicclerk", "civicclerk/OK_tulsa_county_Events.json", TULSA);
    // 09:30 "Z" is the 09:30 meeting; read as UTC it would be 03:30 local.
    expect(x.records.find((r) => r.id.startsWith("2182"))?.date).toBe("2025-12-08T09:30:00-06:00");
    expect(x.records.find((r) => r.id.startsWith("2312"))?.date).toBe("2025-07-16T10:00:00-05:00");
  });

  it("P6: Tulsa's 3 events: one record per published file with its type, a meetings record when none", () => {
    const x = run("civicclerk", "civicclerk/OK_tulsa_county_Events.json", TULSA);
    expect(x.meetings).toEqual(["2182", "2312", "2400"]);
    expect(x.records.map((r) => [r.id, r.kind])).toEqual([
      ["2182#file-9404", "agendas"],
      ["2182#file-9405", "agendas"],
      ["2182#file-9420", "other"],
      ["2312#file-8978", "agendas"],
      ["2312#file-8979", "agendas"],
      ["2312#file-9039", "minutes"],
      ["2400", "meetings"],
    ]);
    expect(x.records[0]).toEqual({
      id: "2182#file-9404",
      title: "Board of County Commissioners",
      date: "2025-12-08T09:30:00-06:00",
      url: "https://tulsacook.api.civicclerk.com/v1/Meetings/GetMeetingFileStream(fileId=9404,plainText=false)",
      kind: "agendas",
    });
    expect(x.records.at(-1)).toMatchObject({
      title: "Board of County Commissioners",
      date: "2026-03-02T09:30:00-06:00",
    });
    expect(x.records.at(-1)!.url).toBe("https://tulsacook.portal.civicclerk.com/event/2400/files");
  });

  it("Lacey's 5 future events have no files: 5 meetings records, no nextLink so no next page", () => {
    const x = run("civicclerk", "civicclerk/WA_lacey_Events.json", LACEY);
    expect(x.records.map((r) => [r.id, r.title, r.date])).toEqual([
      ["1409", "City Council Worksession", "2027-01-26T18:00:00-08:00"],
      ["1396", "City Council Meeting", "2027-01-19T18:00:00-08:00"],
      ["1383", "City Council Worksession", "2027-01-12T18:00:00-08:00"],
      ["1370", "City Council Meeting", "2027-01-05T18:00:00-08:00"],
      ["1408", "City Council Worksession", "2026-12-22T18:00:00-08:00"],
    ]);
    expect(x.next).toBeUndefined();
    expect(
      preset("civicclerk").nextRequest!({ method: "GET", url: LACEY }, x.body, x),
    ).toBeUndefined();
  });

  it("the UTC marker is dropped however it is written: +00:00, fractions, spaces (never a wrong instant)", () => {
    const at = (startDateTime: string) =>
      preset("civicclerk").extract(
        new TextEncoder().encode(
          JSON.stringify({
            value: [{ id: 1, eventName: "Council", startDateTime, publishedFiles: [] }],
          }),
        ),
        LACEY,
        { zone: "America/Los_Angeles" },
      ).records[0]?.date;
    for (const s of [
      "2027-01-05T18:00:00Z",
      "2027-01-05T18:00:00.000Z",
      "2027-01-05T18:00:00+00:00",
      "2027-01-05T18:00:00.0000000+00:00",
      " 2027-01-05T18:00:00Z ",
    ])
      expect(at(s), s).toBe("2027-01-05T18:00:00-08:00");
  });

  it("P7: @odata.nextLink becomes the next request", () => {
    const p = preset("civicclerk");
    const body = new TextEncoder().encode(
      JSON.stringify({
        value: [
          {
            id: 1,
            eventName: "Council",
            startDateTime: "2026-01-05T18:00:00Z",
            publishedFiles: [],
          },
        ],
        "@odata.nextLink": "https://laceywa.api.civicclerk.com/v1/Events?$skip=15",
      }),
    );
    const x = p.extract(body, LACEY);
    expect(x.next).toBe("https://laceywa.api.civicclerk.com/v1/Events?$skip=15");
    expect(p.nextRequest!({ method: "GET", url: LACEY }, body, x)?.url).toBe(x.next);
  });

  it("P4: the first request asks the Events API newest first", () => {
    const r = preset("civicclerk").firstRequest("https://laceywa.api.civicclerk.com/", 0);
    expect(r.method).toBe("GET");
    expect(new URL(r.url).pathname).toBe("/v1/Events");
    expect(new URL(r.url).searchParams.get("$orderby")).toBe("startDateTime desc");
  });
});
