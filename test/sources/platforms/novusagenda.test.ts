import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const DINUBA =
  "https://dinuba.novusagenda.com/agendapublic/meetingsgeneral.aspx?MeetingType=1&Date=6ms";

describe("novusagenda preset", () => {
  it("P6: Dinuba's 4 rows with two-digit years; agenda PDFs and the two minutes", () => {
    const x = run("novusagenda", "novusagenda/CA_dinuba_meetingsgeneral.html", DINUBA);
    // The pager claims 47 items in 4 pages; the fixture holds 4 rows (trimmed), so 4 it is.
    expect(x.meetings).toEqual(["365", "354", "353", "352"]);
    expect(x.records.map((r) => [r.id, r.date, r.kind])).toEqual([
      ["365#agenda", "2022-09-27", "agendas"],
      ["354#agenda", "2022-09-13", "agendas"],
      ["353#agenda", "2022-08-09", "agendas"],
      ["353#minutes-298", "2022-08-09", "minutes"],
      ["352#agenda", "2022-07-12", "agendas"],
      ["352#minutes-297", "2022-07-12", "minutes"],
    ]);
    expect(x.records[0]).toMatchObject({
      title: "Council Meeting",
      url: "https://dinuba.novusagenda.com/agendapublic/DisplayAgendaPDF.ashx?MeetingID=365",
    });
    expect(x.records[3]!.url).toBe(
      "https://dinuba.novusagenda.com/agendapublic/DisplayAgendaPDF.ashx?MinutesMeetingID=298",
    );
  });
});
