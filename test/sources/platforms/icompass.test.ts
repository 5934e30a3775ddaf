import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const DALLAS =
  "https://dallasisd.community.highbond.com/Services/MeetingsService.svc/meetings?from=2025-01-01&to=2026-12-31&loadall=true";

describe("icompass (Diligent Community / CivicWeb) preset", () => {
  it("P6: Dallas ISD's 80 meetings with local date-times and a portal link each", () => {
    const x = run(
      "icompass",
      "icompass-diligent/TX_dallas_isd_highbond_MeetingsService.json",
      DALLAS,
    );
    expect(x.records).toHaveLength(80);
    expect(x.records[0]).toEqual({
      id: "826",
      title: "Public Hearing Agenda and Notice - May 28 2026",
      date: "2026-05-28T17:30:00-05:00",
      url: "https://dallasisd.community.highbond.com/Portal/MeetingInformation.aspx?Org=Cal&Id=826",
      kind: "meetings",
    });
    expect(x.records[1]).toMatchObject({
      id: "825",
      title: "Board Meeting Agenda and Notice - May 28 2026",
      date: "2026-05-28T18:00:00-05:00",
    });
    expect(x.records.at(-1)).toMatchObject({
      id: "76",
      title: "CANCELLED - Board Briefing Agenda and Notice - Jan 09 2025",
    });
    expect(x.records.at(-1)!.date!.slice(0, 10)).toBe("2025-01-09");
    // 32 meetings have `YYYY-MM-DD 00:00` and no MeetingTime: a day, not a midnight meeting.
    expect(x.records.filter((r) => r.date?.length === 10)).toHaveLength(32);
    expect(x.records.some((r) => r.date?.includes("T00:00:00"))).toBe(false);
  });

  it("P7: backfill asks for the year before the window, and stops when a window is empty", () => {
    const p = preset("icompass");
    const first = p.firstRequest(
      "https://dallasisd.community.highbond.com/Portal/",
      Date.UTC(2026, 5, 1),
    );
    expect(first.url).toBe(
      "https://dallasisd.community.highbond.com/Services/MeetingsService.svc/meetings?from=2025-06-01&to=2027-06-01&loadall=true",
    );
    const x = run(
      "icompass",
      "icompass-diligent/TX_dallas_isd_highbond_MeetingsService.json",
      first.url,
    );
    expect(p.nextRequest!(first, x.body, x)?.url).toBe(
      "https://dallasisd.community.highbond.com/Services/MeetingsService.svc/meetings?from=2024-06-01&to=2025-05-31&loadall=true",
    );
    const empty = p.extract(new TextEncoder().encode("[]"), first.url);
    expect(p.nextRequest!(first, new Uint8Array(), empty)).toBeUndefined();
  });
});
