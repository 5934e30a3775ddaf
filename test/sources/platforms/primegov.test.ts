import { describe, expect, it } from "vitest";
import { preset, run } from "./helpers.js";

const LA = "https://lacity.primegov.com/api/v2/PublicPortal/ListUpcomingMeetings";
const FILE = "primegov/CA_lacity_ListUpcomingMeetings.json";

describe("primegov preset", () => {
  it("P6: LA's 13 upcoming meetings, one record per compiled document, links built from templateId", () => {
    const x = run("primegov", FILE, LA);
    expect(x.meetings).toHaveLength(13);
    expect(x.meetings[0]).toBe("15993");
    expect(x.meetings[2]).toBe("15946");
    expect(x.meetings.at(-1)).toBe("16009");
    expect(x.records.slice(0, 2)).toEqual([
      {
        id: "15993#doc-65199",
        title: "Personnel, Audits, and Hiring Committee",
        date: "2024-10-01T08:30:00-07:00",
        url: "https://lacity.primegov.com/Portal/Meeting?meetingTemplateId=133784",
        kind: "agendas",
      },
      {
        id: "15993#doc-65198",
        title: "Personnel, Audits, and Hiring Committee",
        date: "2024-10-01T08:30:00-07:00",
        url: "https://lacity.primegov.com/Public/CompiledDocument?meetingTemplateId=133784&compileOutputType=1",
        kind: "agendas",
      },
    ]);
    expect(x.records.find((r) => r.id.startsWith("15946#"))).toMatchObject({
      title: "City Council Meeting",
      date: "2024-10-01T10:00:00-07:00",
    });
  });

  it("a cancellation shows only in the document's template name: those records are notices", () => {
    const x = run("primegov", FILE, LA);
    const last = x.records.filter((r) => r.id.startsWith("16009#"));
    // The title's trailing space is the platform's; records carry clean text.
    expect(last.map((r) => [r.title, r.date, r.kind])).toEqual([
      [
        "Civil Rights, Equity, Immigration, Aging and Disability Committee",
        "2024-10-04T13:00:00-07:00",
        "notices",
      ],
      [
        "Civil Rights, Equity, Immigration, Aging and Disability Committee",
        "2024-10-04T13:00:00-07:00",
        "notices",
      ],
    ]);
  });

  it("P7: after the upcoming list, backfill reads the archive a year at a time and stops at an empty year", () => {
    const p = preset("primegov");
    const first = p.firstRequest("https://lacity.primegov.com/", 0);
    expect(first.url).toBe(LA);
    const x = run("primegov", FILE, LA);
    const n1 = p.nextRequest!(first, x.body, x)!;
    expect(n1.url).toBe(
      "https://lacity.primegov.com/api/v2/PublicPortal/ListArchivedMeetings?year=2024",
    );
    const n2 = p.nextRequest!(n1, x.body, x)!;
    expect(n2.url).toBe(
      "https://lacity.primegov.com/api/v2/PublicPortal/ListArchivedMeetings?year=2023",
    );
    const empty = p.extract(new TextEncoder().encode("[]"), n2.url);
    expect(p.nextRequest!(n2, new Uint8Array(), empty)).toBeUndefined();
  });
});
